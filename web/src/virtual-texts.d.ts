// The signed-out pages' German texts (sections of de.json), made by vite.config.ts.
declare module 'virtual:kontor/de-signed-out' {
  const texts: Record<string, unknown>;
  export default texts;
}
