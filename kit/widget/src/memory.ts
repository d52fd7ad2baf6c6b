import type { Answer } from './api.js';
import type { Units } from './i18n.js';

/** A returning shopper's answers, kept in her own browser only (never sent anywhere but with her next answers). */
export interface Remembered {
  readonly units: Units;
  readonly answers: Record<string, Answer>;
}

const KEY = 'size-fit:answers';

export function recall(): Remembered | null {
  try {
    const stored: unknown = JSON.parse(localStorage.getItem(KEY) ?? 'null');
    if (typeof stored !== 'object' || stored === null || !('answers' in stored) || !('units' in stored)) return null;
    return stored as Remembered;
  } catch {
    return null; // storage blocked or unreadable: nothing remembered
  }
}

export function remember(value: Remembered): void {
  try {
    localStorage.setItem(KEY, JSON.stringify(value));
  } catch {
    // storage full or blocked: the next product asks again
  }
}
