import type { WebhookDeliveryRow, WebhookEndpointRow } from './webhook-endpoints.repository.js';
import type {
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEventType,
} from './webhook-endpoints.schemas.js';

/**
 * Row → response, field by field: nothing reaches the client that is not listed here (the
 * sealed secrets in particular never do).
 */
export function presentEndpoint(row: WebhookEndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    version: row.version,
    url: row.url,
    description: row.description,
    eventTypes: JSON.parse(row.event_types) as WebhookEventType[],
    enabled: row.enabled === 1,
    disabledReason: row.disabled_reason,
    failureCount: row.failure_count,
    failingSince: row.failing_since,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function presentDelivery(row: WebhookDeliveryRow): WebhookDelivery {
  return {
    id: row.id,
    endpointId: row.endpoint_id,
    eventType: row.event_type as WebhookEventType,
    status: row.status as WebhookDelivery['status'],
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    lastAttemptAt: row.last_attempt_at,
    lastStatusCode: row.last_status_code,
    lastLatencyMs: row.last_latency_ms,
    lastError: row.last_error,
    responseExcerpt: row.response_excerpt,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
