/**
 * Keyword matching of budget categories (decisions §12): case- and umlaut-insensitive, so
 * `Müller` matches `MUELLER`, `muller` and `Mueller GmbH`; `Straße` matches `STRASSE`. Bank
 * statements spell umlauts either way (SEPA text is often ASCII-only).
 */
export function foldForMatch(text: string): string {
  return text
    .toLowerCase()
    .replace(/ä/g, 'ae')
    .replace(/ö/g, 'oe')
    .replace(/ü/g, 'ue')
    .replace(/ß/g, 'ss')
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The same word written with a plain vowel: `mueller` → `muller` (bank text often drops the e). */
function plainVowels(folded: string): string {
  return folded.replace(/ae/g, 'a').replace(/oe/g, 'o').replace(/ue/g, 'u');
}

export interface KeywordCategory {
  id: string;
  name: string;
  keywords: string[];
}

export interface KeywordMatch {
  categoryId: string;
  categoryName: string;
  /** The keywords found, as the category spells them. */
  keywords: string[];
}

/**
 * Categories whose keywords occur in `text` (counterparty and purpose of a debit), most
 * matched keywords first. A keyword matches as a substring of the folded text, with umlauts
 * compared both as `ae` and as a plain vowel.
 */
export function matchCategories(categories: KeywordCategory[], text: string): KeywordMatch[] {
  const folded = foldForMatch(text);
  const plain = plainVowels(folded);
  const matches: KeywordMatch[] = [];
  for (const category of categories) {
    const found = category.keywords.filter((keyword) => {
      const k = foldForMatch(keyword);
      return k !== '' && (folded.includes(k) || plain.includes(plainVowels(k)));
    });
    if (found.length > 0)
      matches.push({ categoryId: category.id, categoryName: category.name, keywords: found });
  }
  return matches.sort((a, b) => b.keywords.length - a.keywords.length);
}
