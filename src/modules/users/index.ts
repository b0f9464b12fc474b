/** The users module's face: what the app and other modules may use. */
export { consumeCode, issueCode } from './codes.js';
export { presentUser } from './users.presenter.js';
export type { UserRow } from './users.presenter.js';
export { userRoutes } from './users.routes.js';
export { EmailField, UserSchema } from './users.schemas.js';
export {
  revokeSessions,
  rotateRefresh,
  sessionOfRefreshToken,
  startSession,
  type IssuedTokens,
  type SessionClient,
} from './sessions.js';
export {
  activeAdminEmails,
  anyUserExists,
  confirmUser,
  countUsers,
  findUserByEmail,
  findUserById,
  insertUser,
  recordLogin,
  setPassword,
} from './users.repository.js';
export {
  countActivePersonalTokens,
  deletePersonalTokens,
  insertTokens,
  listPersonalTokens,
  touchToken,
  type TokenRow,
} from './credentials.repository.js';
