// Preloaded into a tuttid process by the reliability suite: SIGUSR2 throws an error no
// code catches, so the test can watch the daemon die of an uncaught exception.
process.on('SIGUSR2', () => {
  throw new Error('induced uncaught error (reliability test)');
});
