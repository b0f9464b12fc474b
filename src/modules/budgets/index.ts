/** The budgets module's face: what the app and other modules may use. */
export { insertEntries as insertBudgetEntries, monthRange } from './budgets.repository.js';
export { budgetRoutes } from './budgets.routes.js';
export { foldForMatch, matchCategories } from './keywords.js';
export type { KeywordCategory } from './keywords.js';
