/**
 * The account logo: the file goes through the signed upload flow of docs/files.md
 * (`POST /v1/files/upload-url`, then the bytes to the URL it answers), then becomes the
 * account's `logoFileId` (`PATCH /v1/account/addresses`). The API checks type, bytes and
 * pixel size; its refusals show as they come.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type ChangeEvent } from 'react';
import { useTranslation } from 'react-i18next';
import type { components, Problem } from '@kontor/client';
import type { AccountSettings, Company } from '../../api/account';
import { api } from '../../api/client';
import { keys } from '../../api/keys';
import { ProblemError } from '../../api/problems';
import { FormAlert, FormNote } from '../../components/Form';

type ImageType = Extract<
  components['schemas']['CreateUploadUrl']['contentType'],
  'image/png' | 'image/jpeg' | 'image/webp'
>;
const IMAGE_TYPES: readonly ImageType[] = ['image/png', 'image/jpeg', 'image/webp'];
const ACCEPT = IMAGE_TYPES.join(',');

function isImageType(type: string): type is ImageType {
  return (IMAGE_TYPES as readonly string[]).includes(type);
}

class UploadFailed extends Error {
  constructor(readonly problem: Problem | null) {
    super(problem?.detail ?? problem?.title ?? 'upload failed');
  }
}

/** Sends the bytes where upload-url said: Kontor's own route through the client, else as told (S3). */
async function putBytes(target: components['schemas']['UploadUrl'], file: File): Promise<void> {
  const url = new URL(target.uploadUrl, window.location.origin);
  const token = url.searchParams.get('token');
  if (url.origin === window.location.origin && url.pathname === '/v1/files/upload' && token) {
    const { error } = await api.PUT('/v1/files/upload', {
      params: { query: { token } },
      body: file as unknown as never,
      bodySerializer: (body: unknown) => body as BodyInit,
      headers: target.headers,
    });
    if (error) throw new UploadFailed(error);
    return;
  }
  const response = await fetch(target.uploadUrl, {
    method: target.method,
    headers: target.headers,
    body: file,
  });
  if (!response.ok) throw new UploadFailed(null);
}

async function uploadLogo(file: File, contentType: ImageType, version: number) {
  const created = await api.POST('/v1/files/upload-url', {
    body: { fileName: file.name, contentType, size: file.size },
  });
  if (created.error) throw new UploadFailed(created.error);
  await putBytes(created.data, file);
  const saved = await api.PATCH('/v1/account/addresses', {
    body: { version, logoFileId: created.data.fileId },
  });
  if (saved.error) throw new UploadFailed(saved.error);
  return saved.data;
}

function useLogoUrl(fileId: string | null) {
  return useQuery({
    queryKey: [...keys.files.detail(fileId ?? ''), 'download-url'],
    enabled: fileId !== null,
    // The signed URL lives 15 minutes; fetch a fresh one well before.
    staleTime: 5 * 60_000,
    queryFn: async () => {
      const { data, error } = await api.GET('/v1/files/download-url', {
        params: { query: { fileId: fileId ?? '' } },
      });
      if (error) throw new ProblemError(error);
      return data.url;
    },
  });
}

export function LogoSection({ account }: { account: AccountSettings }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const inputId = useId();
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const logo = useLogoUrl(account.logoFileId);

  /** Our own write moved the account's version, which the company form shares. */
  const settle = async (next: AccountSettings) => {
    queryClient.setQueryData(keys.account.all, next);
    queryClient.setQueryData<Company>(keys.company.all, (company) =>
      company === undefined ? company : { ...company, version: next.version },
    );
    await queryClient.invalidateQueries({ queryKey: keys.readiness.all });
  };

  const onChoose = async (event: ChangeEvent<HTMLInputElement>) => {
    const input = event.currentTarget;
    const file = input.files?.[0];
    if (file === undefined) return;
    setError(null);
    setMessage(null);
    if (!isImageType(file.type)) {
      setError(t('company.logoType'));
      return;
    }
    setBusy(true);
    try {
      await settle(await uploadLogo(file, file.type, account.version));
      setMessage(t('company.logoSaved'));
    } catch (err) {
      setError(err instanceof UploadFailed && err.problem ? err.message : t('common.unexpected'));
    } finally {
      setBusy(false);
      input.value = '';
    }
  };

  const onRemove = async () => {
    setError(null);
    setMessage(null);
    const { data, error: problem } = await api.PATCH('/v1/account/addresses', {
      body: { version: account.version, logoFileId: null },
    });
    if (problem) {
      setError(problem.detail ?? problem.title);
      return;
    }
    await settle(data);
    setMessage(t('company.logoRemoved'));
  };

  return (
    <section className="settings-section" id="logo" aria-labelledby="logo-title">
      <h2 id="logo-title">{t('company.logo')}</h2>
      <p className="muted">{t('company.logoHint')}</p>
      <div className="logo-row">
        {account.logoFileId !== null && logo.data ? (
          <img className="logo-preview" src={logo.data} alt={t('company.logoAlt')} />
        ) : (
          <p className="logo-empty">{t('company.noLogo')}</p>
        )}
        <div className="logo-actions">
          <div className="field">
            <label htmlFor={inputId}>
              {account.logoFileId === null ? t('company.logoChoose') : t('company.logoReplace')}
            </label>
            <input
              id={inputId}
              type="file"
              accept={ACCEPT}
              disabled={busy}
              onChange={(event) => void onChoose(event)}
            />
          </div>
          {account.logoFileId !== null ? (
            <button type="button" className="button" onClick={() => void onRemove()}>
              {t('company.logoRemove')}
            </button>
          ) : null}
        </div>
      </div>
      {busy ? (
        <p role="status" aria-live="polite">
          {t('company.logoUploading')}
        </p>
      ) : null}
      <FormAlert message={error} />
      <FormNote message={message} />
    </section>
  );
}
