/**
 * The DATEV export of a month. The API answers the ZIP as a stream (`GET /v1/exports/datev`),
 * not as a job: the page reads it through the client chunk by chunk, shows how much arrived,
 * stays usable meanwhile, and offers the finished file as an object URL to save.
 */
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../api/client';
import { ProblemError } from '../../api/problems';
import { ErrorAlert } from '../../components/AdminKit';
import { formatBytes, formatDate, today } from '../../format';

type ExportState =
  | { kind: 'idle' }
  | { kind: 'running'; bytes: number }
  | { kind: 'done'; url: string; filename: string; bytes: number }
  | { kind: 'failed'; error: unknown };

/** The first and last day of a `YYYY-MM` month (calendar arithmetic, no business rule). */
export function monthRange(month: string): { from: string; to: string } {
  const [year, m] = month.split('-').map(Number) as [number, number];
  const last = new Date(Date.UTC(year, m, 0)).getUTCDate();
  return { from: `${month}-01`, to: `${month}-${String(last).padStart(2, '0')}` };
}

function filenameOf(disposition: string | null, from: string, to: string): string {
  return /filename="([^"]+)"/.exec(disposition ?? '')?.[1] ?? `DATEV_${from}_${to}.zip`;
}

async function readAll(
  body: ReadableStream<Uint8Array>,
  onBytes: (n: number) => void,
): Promise<Blob> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    bytes += value.byteLength;
    onBytes(bytes);
  }
  return new Blob(chunks as BlobPart[], { type: 'application/zip' });
}

export function DatevExportPanel() {
  const { t } = useTranslation();
  const [month, setMonth] = useState(() => today().slice(0, 7));
  const [state, setState] = useState<ExportState>({ kind: 'idle' });
  const url = useRef<string | null>(null);
  // The object URL holds the file in memory until the page forgets it.
  useEffect(() => () => void (url.current && URL.revokeObjectURL(url.current)), []);

  const start = async () => {
    if (url.current) URL.revokeObjectURL(url.current);
    url.current = null;
    const { from, to } = monthRange(month);
    setState({ kind: 'running', bytes: 0 });
    try {
      const result = await api.GET('/v1/exports/datev', {
        params: { query: { from, to } },
        parseAs: 'stream',
      });
      if (result.error || !result.data) {
        setState({ kind: 'failed', error: result.error ? new ProblemError(result.error) : null });
        return;
      }
      const blob = await readAll(result.data, (bytes) => setState({ kind: 'running', bytes }));
      url.current = URL.createObjectURL(blob);
      const filename = filenameOf(result.response.headers.get('content-disposition'), from, to);
      setState({ kind: 'done', url: url.current, filename, bytes: blob.size });
    } catch (error) {
      setState({ kind: 'failed', error });
    }
  };

  const { from, to } = monthRange(month);
  return (
    <section className="admin-panel" aria-labelledby="datev-export">
      <h2 id="datev-export">{t('monthEnd.exportTitle')}</h2>
      <p className="muted">{t('monthEnd.exportHint')}</p>
      <form
        className="admin-actions"
        onSubmit={(event) => {
          event.preventDefault();
          void start();
        }}
      >
        <div className="field">
          <label htmlFor="datev-month">{t('monthEnd.month')}</label>
          <input
            id="datev-month"
            type="month"
            required
            value={month}
            onChange={(e) => setMonth(e.target.value)}
          />
        </div>
        <button
          type="submit"
          className="button button-primary"
          disabled={state.kind === 'running' || month === ''}
        >
          {t('monthEnd.startExport')}
        </button>
      </form>
      {month === '' ? null : (
        <p className="muted">
          {t('monthEnd.period', { from: formatDate(from), to: formatDate(to) })}
        </p>
      )}
      <div aria-live="polite">
        {state.kind === 'running' ? (
          <p className="admin-progress" role="status">
            <progress aria-label={t('monthEnd.progress')} />
            {t('monthEnd.running', { size: formatBytes(state.bytes) })}
          </p>
        ) : null}
        {state.kind === 'done' ? (
          <div className="admin-actions">
            <p role="status" className="form-note">
              {t('monthEnd.ready', { size: formatBytes(state.bytes) })}
            </p>
            <a className="button" href={state.url} download={state.filename}>
              {t('monthEnd.download', { name: state.filename })}
            </a>
          </div>
        ) : null}
      </div>
      {state.kind === 'failed' ? <ErrorAlert error={state.error ?? new Error()} /> : null}
    </section>
  );
}
