// The one way the client reaches the server: the API's public operations, typed by the
// description (a path the description does not have does not type-check), with every refusal
// turned into an `ApiError` that carries the problem's `code` and `detail`.

/** @typedef {import("./types.js").Paths} Paths */
/** @typedef {import("./types.js").Problem} Problem */

/**
 * The paths that have an operation for `M`.
 * @template {"get" | "post" | "put" | "delete"} M
 * @typedef {{[P in keyof Paths]: Paths[P] extends {[K in M]: object} ? P : never}[keyof Paths]} PathsWith
 */

/**
 * @template O
 * @typedef {O extends {parameters: {path: infer X}} ? X : never} PathOf
 */
/**
 * @template O
 * @typedef {O extends {parameters: {query?: infer X}} ? X : never} QueryOf
 */
/**
 * @template O
 * @typedef {O extends {requestBody: {content: {"application/json": infer X}}} ? X
 *   : O extends {requestBody?: {content: {"application/json": infer X}}} ? X : never} BodyOf
 */
/**
 * The JSON of an operation's success (`undefined` for `204`).
 * @template O
 * @typedef {O extends {responses: {200: {content: {"application/json": infer X}}}} ? X
 *   : O extends {responses: {201: {content: {"application/json": infer X}}}} ? X
 *   : O extends {responses: {202: {content: {"application/json": infer X}}}} ? X
 *   : O extends {responses: {200: {content: {"text/markdown": infer X}}}} ? X
 *   : undefined} AnswerOf
 */

/**
 * What a call takes besides its path.
 * @template O
 * @typedef {object} CallOptions
 * @property {PathOf<O>} [path] The path's parameters.
 * @property {QueryOf<O>} [query] Its query.
 * @property {BodyOf<O>} [body] Its JSON body.
 * @property {Record<string, string>} [headers] More headers.
 * @property {boolean} [anonymous] Send no token even when logged in.
 * @property {boolean} [raw] Answer the body as the text the server sent.
 */

/**
 * An answer: the status, the body and the headers.
 * @template T
 * @typedef {{status: number, body: T, headers: Headers}} Answer
 */

/** A refusal or failure, told as the server's problem says it. */
export class ApiError extends Error {
  /**
   * @param {number} status 0 when the server could not be reached.
   * @param {Problem} problem
   * @param {Headers} [headers]
   */
  constructor(status, problem, headers) {
    super(problem.detail);
    this.name = "ApiError";
    this.status = status;
    this.code = problem.code;
    this.detail = problem.detail;
    this.field = problem.field ?? null;
    this.currentVersion = problem.current_version ?? null;
    const retry = headers?.get("retry-after");
    /** Seconds to wait before trying again, when the server said. */
    this.retryAfter = retry ? Number(retry) : null;
  }
}

/**
 * Whatever went wrong, in a sentence for the player.
 * @param {unknown} error
 */
export function explain(error) {
  if (error instanceof ApiError) return error.detail;
  if (error instanceof Error) return error.message;
  return String(error);
}

/**
 * Tokens for the calls that need one (the session).
 * @typedef {object} Credentials
 * @property {() => Promise<string | null>} accessToken A fresh access token, or none.
 * @property {() => Promise<boolean>} renew Refresh now (after a `401`); whether it worked.
 */

export class Api {
  /**
   * @param {string} base The server's address (`https://kc.example.com`), no trailing `/`.
   */
  constructor(base) {
    this.base = base.replace(/\/+$/, "");
    /** @type {Credentials | null} */
    this.credentials = null;
  }

  /**
   * @template {PathsWith<"get">} P
   * @param {P} path
   * @param {CallOptions<Paths[P]["get"]>} [options]
   * @returns {Promise<AnswerOf<Paths[P]["get"]>>}
   */
  async get(path, options = {}) {
    return (await this.call("GET", path, options)).body;
  }

  /**
   * @template {PathsWith<"post">} P
   * @param {P} path
   * @param {CallOptions<Paths[P]["post"]>} [options]
   * @returns {Promise<AnswerOf<Paths[P]["post"]>>}
   */
  async post(path, options = {}) {
    return (await this.call("POST", path, options)).body;
  }

  /**
   * @template {PathsWith<"put">} P
   * @param {P} path
   * @param {CallOptions<Paths[P]["put"]>} [options]
   * @returns {Promise<AnswerOf<Paths[P]["put"]>>}
   */
  async put(path, options = {}) {
    return (await this.call("PUT", path, options)).body;
  }

  /**
   * @template {PathsWith<"delete">} P
   * @param {P} path
   * @param {CallOptions<Paths[P]["delete"]>} [options]
   * @returns {Promise<AnswerOf<Paths[P]["delete"]>>}
   */
  async delete(path, options = {}) {
    return (await this.call("DELETE", path, options)).body;
  }

  /**
   * A read's body exactly as the server sent it (the export, whose bytes `verify` reads).
   * @template {PathsWith<"get">} P
   * @param {P} path
   * @param {CallOptions<Paths[P]["get"]>} [options]
   * @returns {Promise<string>}
   */
  async text(path, options = {}) {
    return /** @type {string} */ ((await this.call("GET", path, { ...options, raw: true })).body);
  }

  /**
   * Any operation, with its status and headers (a `304` answers a `null` body).
   * @template {keyof Paths} P
   * @template {"get" | "post" | "put" | "delete"} M
   * @param {Uppercase<M>} method
   * @param {P} path
   * @param {CallOptions<Paths[P][M]>} options
   * @returns {Promise<Answer<AnswerOf<Paths[P][M]>>>}
   */
  async call(method, path, options) {
    const url = this.url(path, /** @type {object | undefined} */ (options.path), options.query);
    const send = async () => {
      /** @type {Record<string, string>} */
      const headers = { accept: "application/json, application/problem+json", ...options.headers };
      const token = options.anonymous || !this.credentials ? null : await this.credentials.accessToken();
      if (token) headers.authorization = `Bearer ${token}`;
      /** @type {RequestInit} */
      const init = { method, headers, cache: "no-store" };
      if (options.body !== undefined) {
        headers["content-type"] = "application/json";
        init.body = JSON.stringify(options.body);
      }
      try {
        return { response: await fetch(url, init), token };
      } catch (error) {
        throw new ApiError(0, {
          type: "about:blank", title: "Unreachable", status: 0, code: "unreachable",
          detail: "The server cannot be reached: check the connection and try again.",
        });
      }
    };
    let { response, token } = await send();
    // An access token that expired in between (a laptop asleep): renew once and try again.
    if (response.status === 401 && token && this.credentials && (await this.credentials.renew())) {
      ({ response } = await send());
    }
    return answer(response, options.raw ?? false);
  }

  /**
   * The URL of an operation (also for `EventSource`).
   * @param {string} template
   * @param {object} [parameters]
   * @param {object} [query]
   */
  url(template, parameters, query) {
    const values = /** @type {Record<string, unknown>} */ (parameters ?? {});
    const path = template.replace(/\{(\w+)\}/g, (_, name) => {
      const value = values[name];
      if (value === undefined) throw new Error(`${template} needs ${name}`);
      return encodeURIComponent(String(value));
    });
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value !== undefined && value !== null && value !== "") search.set(name, String(value));
    }
    const rest = search.toString();
    return `${this.base}${path}${rest ? `?${rest}` : ""}`;
  }
}

/**
 * @param {Response} response
 * @param {boolean} raw Keep a success's body as text.
 * @returns {Promise<Answer<any>>}
 */
async function answer(response, raw) {
  const text = await response.text();
  const type = response.headers.get("content-type") ?? "";
  if (response.ok || response.status === 304) {
    let body = null;
    if (raw) body = text;
    else if (text && type.includes("json")) body = JSON.parse(text);
    else if (text) body = text;
    return { status: response.status, body: response.status === 204 ? undefined : body, headers: response.headers };
  }
  /** @type {Problem} */
  let problem = {
    type: "about:blank", title: response.statusText, status: response.status,
    code: `http_${response.status}`, detail: `The server answered ${response.status} ${response.statusText}.`,
  };
  if (text && type.includes("json")) {
    try {
      const parsed = JSON.parse(text);
      if (parsed && typeof parsed.detail === "string") problem = parsed;
    } catch {
      // Not a problem document: keep the status line.
    }
  }
  throw new ApiError(response.status, problem, response.headers);
}
