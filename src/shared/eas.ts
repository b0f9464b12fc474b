import { leitwegIdProblem } from './leitweg-id.js';
import { vatIdProblem } from './vat-id.js';

/**
 * The CEF Electronic Address Scheme (EAS) code list: the schemes of an electronic address in
 * an e-invoice (BT-34 seller, BT-49 buyer, `schemeID`). Exactly the list EN 16931 1.3.15 checks
 * (BR-CL-25, in the KoSIT XRechnung 3.0.2 configuration), so an address accepted here never
 * fails that rule. The retired `9958` (old German Leitweg-ID scheme) is not in it: Leitweg-IDs
 * use `0204`. Most used in Germany: `EM` email, `0204` Leitweg-ID, `9930` German VAT id, `0088`
 * GLN, `0060` DUNS, `0007` Swedish organisation number, `0151` Australian Business Number.
 */
export const EAS_CODES: readonly string[] = (
  '0002 0007 0009 0037 0060 0088 0096 0097 0106 0130 0135 0142 0147 0151 0154 0158 0170 0177 ' +
  '0183 0184 0188 0190 0191 0192 0193 0194 0195 0196 0198 0199 0200 0201 0202 0203 0204 0205 ' +
  '0208 0209 0210 0211 0212 0213 0215 0216 0217 0218 0219 0220 0221 0225 0230 0235 0240 0244 ' +
  '9910 9913 9914 9915 9918 9919 9920 9922 9923 9924 9925 9926 9927 9928 9929 9930 9931 9932 ' +
  '9933 9934 9935 9936 9937 9938 9939 9940 9941 9942 9943 9944 9945 9946 9947 9948 9949 9950 ' +
  '9951 9952 9953 9957 9959 AN AQ AS AU EM'
).split(' ');

const EAS = new Set(EAS_CODES);

// The email syntax ajv-formats checks for `format: email`, so EM values and email fields
// accept the same addresses.
const EMAIL =
  /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/i;

/** An electronic address problem: which part (`scheme` or `value`) and why. */
export interface ElectronicAddressProblem {
  field: 'scheme' | 'value';
  message: string;
  code: string;
}

/**
 * Why an electronic address is invalid, or undefined. The scheme must be an EAS code; the
 * value must fit the schemes whose syntax is checkable here: `EM` an email address, `0204` a
 * Leitweg-ID with correct check digits, `9930` a German VAT id.
 */
export function electronicAddressProblem(address: {
  scheme: string;
  value: string;
}): ElectronicAddressProblem | undefined {
  if (!EAS.has(address.scheme))
    return {
      field: 'scheme',
      message: 'must be a code of the CEF EAS code list, e.g. EM, 0204, 9930 or 0088',
      code: 'not_in_code_list',
    };
  const value = address.value;
  if (address.scheme === 'EM' && !EMAIL.test(value))
    return {
      field: 'value',
      message: 'must be an email address for scheme EM',
      code: 'invalid_format',
    };
  if (address.scheme === '0204') {
    const problem = leitwegIdProblem(value);
    if (problem)
      return { field: 'value', message: `${problem} (scheme 0204)`, code: 'invalid_format' };
  }
  if (address.scheme === '9930') {
    const problem = value.toUpperCase().startsWith('DE')
      ? vatIdProblem(value)
      : 'must start with DE';
    if (problem)
      return {
        field: 'value',
        message: `${problem} (scheme 9930: German VAT id)`,
        code: 'invalid_format',
      };
  }
  return undefined;
}
