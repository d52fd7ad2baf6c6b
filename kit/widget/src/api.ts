/** The integrator's backend, as the widget calls it: JSON in, JSON out, same origin (its cookie names the sessions). */

export interface Question {
  readonly key: string;
  readonly required: boolean;
}

export interface Size {
  readonly label: string;
  /** The storefront's variant in this size, or null when it sells none. */
  readonly variant_id: string | null;
}

export interface Started {
  readonly session_id: string;
  readonly questions: readonly Question[];
  readonly sizes: readonly Size[];
}

/** The backend's word that this shopper gets no size help (an experiment's holdout): the widget hides itself. */
export interface NoSizeHelp {
  readonly size_help: false;
}

export function isNoSizeHelp(answer: unknown): answer is NoSizeHelp {
  return typeof answer === 'object' && answer !== null && 'size_help' in answer && answer.size_help === false;
}

export interface Alternative {
  readonly size_label: string;
  readonly confidence: number;
  /** Per zone, how this size would fit (the backend reads it off the chart). */
  readonly fit?: Readonly<Record<string, string>>;
}

export interface SizeOutcome {
  readonly size_label: string;
  readonly too_small: number;
  readonly fit: number;
  readonly too_large: number;
}

export interface Recommendation {
  readonly size_label: string;
  readonly confidence: number;
  readonly fit: Readonly<Record<string, string>>;
  readonly alternatives: readonly Alternative[];
  /** Per size, the odds of what it turns out as should she take it; empty until the store has outcomes. */
  readonly outcomes?: readonly SizeOutcome[];
  readonly adjustment: { readonly source: string; readonly size_steps: number; readonly chart_size_label: string } | null;
}

export interface Decided {
  readonly variant_id: string | null;
  readonly cart_property: { readonly name: string; readonly value: string };
}

export interface FieldError {
  readonly field: string;
  readonly code: string;
  readonly message: string;
}

/** As the service takes them: a measure (`method`: a zone's, `bra_size` for a chest read from a bra size), or a value. */
export type Answer = { value: number; unit: string; method?: string } | number | string | boolean;

/** A refusal the shopper can act on (field errors), or the backend/service not answering. */
export class BackendError extends Error {
  constructor(
    readonly status: number,
    readonly errors: readonly FieldError[] = [],
  ) {
    super(`the size service answered ${status}`);
  }
}

/** The button waits for the page view's answer this long at most, then shows. */
const VIEW_TIMEOUT_MS = 5_000;

export class Backend {
  constructor(private readonly base: string) {}

  /**
   * Whether to show size help on this product page (the backend counts the view when it is shown). Any failure shows
   * it: the service still refuses a holdout's session, and the page's own size picker works either way.
   */
  async view(product: string): Promise<boolean> {
    const answer = await this.post<unknown>('/views', { product }, VIEW_TIMEOUT_MS).catch(() => null);
    return !isNoSizeHelp(answer);
  }

  start(product: string): Promise<Started | NoSizeHelp> {
    return this.post('/sessions', { product });
  }

  answer(sessionId: string, answers: Record<string, Answer>): Promise<{ recommendation: Recommendation }> {
    return this.post(`/sessions/${encodeURIComponent(sessionId)}/answers`, { answers });
  }

  decide(sessionId: string, sizeLabel: string): Promise<Decided> {
    return this.post(`/sessions/${encodeURIComponent(sessionId)}/decision`, { size_label: sizeLabel });
  }

  private async post<T>(path: string, body: unknown, timeoutMs = 15_000): Promise<T> {
    let response: Response;
    try {
      response = await fetch(`${this.base.replace(/\/$/, '')}${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
        credentials: 'same-origin',
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch {
      throw new BackendError(0);
    }
    const text = await response.text().catch(() => '');
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = null; // a proxy's error page: the status says enough
    }
    if (!response.ok) {
      const errors =
        typeof parsed === 'object' && parsed !== null && 'errors' in parsed && Array.isArray(parsed.errors) ? parsed.errors : [];
      throw new BackendError(response.status, errors as FieldError[]);
    }
    return parsed as T;
  }
}
