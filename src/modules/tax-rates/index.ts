/** The tax-rates module's face: what the app and other modules may use. */
export {
  findDefaultTaxRate,
  findDefaultTaxRateLater,
  findTaxRate,
  findTaxRateLater,
  hasTaxRates,
} from './tax-rates.repository.js';
export { taxRateRoutes } from './tax-rates.routes.js';
export { seedAccountTaxRates } from './tax-rates.service.js';
