/** The local web dashboard: its routes on the control app and its one-time login links. */
export { type Dashboard, type DashboardContext, registerDashboard } from './dashboard-routes.js';
export { createLoginCodes, LOGIN_CODE_TTL_MS, type LoginCodes } from './login-codes.js';
