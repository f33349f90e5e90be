/**
 * The shipped claude-agent-acp and codex-acp descriptors with the real agents through
 * `tuttid`: bound and listed beside the user's own MCP server, a turn that shows the
 * connector skill, the guidance and the user's own instructions and skill, no session file
 * left, history kept for a load, and a live refresh (see `shipped-agent-suite.ts`).
 */
import { claudeAgentAcp, codexAcp } from '@tutti/test-kit/descriptor-agents';
import { shippedAgentSuite } from '@tutti/test-kit/shipped-agent-suite';

shippedAgentSuite(
  'shipped descriptors: claude-agent-acp and codex-acp',
  [claudeAgentAcp, codexAcp],
  {
    'claude-agent-acp': {
      refresh: 'list-changed',
      refreshWithoutTurn: 'list-changed',
      loadsAfterEnd: true,
    },
    'codex-acp': {
      refresh: 'resume-or-restart',
      refreshWithoutTurn: 'resume-or-restart',
      loadsAfterEnd: true,
    },
  },
);
