import { hash, verify } from '@node-rs/argon2';
import { AppError } from '../../shared/errors.js';

/** OWASP's argon2id baseline: 19 MiB, 2 iterations, 1 lane. */
const ARGON2ID = 2; // Algorithm.Argon2id (a const enum, not importable under verbatimModuleSyntax)
const OPTIONS = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 };

export const MAX_PASSWORD_LENGTH = 256;

/**
 * Passwords people pick most often that are long enough to pass the length rule; shorter
 * ones are refused by length anyway. Compared case-insensitively.
 */
const COMMON = new Set([
  '123456789012',
  '1234567890123',
  '12345678901234',
  '123456789123',
  '111111111111',
  '000000000000',
  'password1234',
  'password12345',
  'password123456',
  'passwordpassword',
  'password1!password1!',
  'qwertyuiop12',
  'qwertyuiopasdf',
  'qwertyuiopasdfghjkl',
  'qwerty123456',
  '1q2w3e4r5t6y',
  '1qaz2wsx3edc',
  'iloveyou1234',
  'abcdefghijkl',
  'abc123abc123',
  'letmein12345',
  'welcome12345',
  'administrator',
  'administrator1',
  'changeme1234',
  'monkey123456',
  'dragon123456',
  'football1234',
  'baseball1234',
  'sunshine1234',
  'princess1234',
  'trustno1trustno1',
  'passw0rd1234',
  'p@ssw0rd1234',
  'superman1234',
  'starwars1234',
  'hallo1234567',
  'passwort1234',
  'passwort12345',
  'geheim123456',
  'schalke04schalke04',
  'ichliebedich',
  'ichliebedich1',
  'qwertzuiopü',
  'qwertzuiop12',
  'asdfghjklöä',
  'asdfghjkl123',
  'zaq12wsxcde3',
  'correcthorsebatterystaple',
  'kontor123456',
  'kontorkontor',
]);

/** Refuses what the decisions refuse: too short, too long, common. Never truncates, no composition rules. */
export function checkPassword(password: string, minLength: number, field: string): void {
  const fail = (message: string) =>
    new AppError('password_rejected', `The password ${message}.`, {
      errors: [{ path: `/body/${field}`, message, code: 'password_rejected' }],
    });
  const length = [...password].length;
  if (length < minLength) throw fail(`must have at least ${minLength} characters`);
  if (length > MAX_PASSWORD_LENGTH)
    throw fail(`must have at most ${MAX_PASSWORD_LENGTH} characters`);
  const lower = password.toLowerCase();
  if (COMMON.has(lower) || /^(.)\1+$/.test(password) || isSequence(lower))
    throw fail('is too common; choose a longer phrase');
}

function isSequence(text: string): boolean {
  const digits = '0123456789012345678901234567890123456789';
  const letters = 'abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz';
  return digits.includes(text) || letters.includes(text);
}

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

let dummyHash: Promise<string> | undefined;

/**
 * Spends the same time as a real verification, for unknown emails, so the answer time does
 * not tell whether an email is registered.
 */
export async function burnVerify(password: string): Promise<false> {
  dummyHash ??= hashPassword('kontor-dummy-password-for-timing');
  await verifyPassword(await dummyHash, password);
  return false;
}
