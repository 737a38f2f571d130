// A whole 2-player match played through types openapi-typescript generates from
// openapi/openapi.json (as ./api.d.ts), compiled under `tsc --strict` and run by run.py:
//
//     node play.js http://127.0.0.1:8080
//
// Every body sent is built as its generated request type, and every answer is read as its
// generated response type: a description that disagrees with the server fails to compile here
// or fails at run time below.

import type { components, paths } from "./api.js";

type Schemas = components["schemas"];
type Json<P extends keyof paths, M extends keyof paths[P], S extends number> =
  paths[P][M] extends { responses: Record<S, { content: { "application/json": infer T } }> } ? T : never;

type TokenPair = Json<"/v1/auth/login", "post", 200>;
type Created = Json<"/v1/matches", "post", 201>;
type View = Json<"/v1/matches/{id}/view", "get", 200>;
type Moved = Json<"/v1/matches/{id}/moves", "post", 200>;
type Feed = Json<"/v1/matches/{id}/events", "get", 200>;
type Action = Schemas["Action"];

const server = process.argv[2];
const password = "correct horse battery";

async function call<T>(method: string, path: string, token?: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = {};
  if (token !== undefined) headers["authorization"] = `Bearer ${token}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  const answer = await fetch(server + path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!answer.ok) {
    const problem = (await answer.json()) as Schemas["Problem"];
    throw new Error(`${method} ${path}: ${answer.status} ${problem.code}: ${problem.detail ?? ""}`);
  }
  return (await answer.json()) as T;
}

async function player(name: string): Promise<string> {
  const account: Schemas["NewAccount"] = { username: name, password };
  await call<Schemas["AccountView"]>("POST", "/v1/accounts", undefined, account);
  const login: Schemas["Login"] = { username: name, password };
  const tokens = await call<TokenPair>("POST", "/v1/auth/login", undefined, login);
  return tokens.access_token;
}

/** Cards onto the table first, then a draw, then the end of the turn. */
function choose(view: View): Action {
  const order: Action["type"][] = ["play", "move", "draw", "end_turn"];
  for (const kind of order) {
    const action = view.legal_actions.find((candidate) => candidate.type === kind);
    if (action !== undefined) return action;
  }
  throw new Error(`nothing to send among ${JSON.stringify(view.legal_actions)}`);
}

function describe(action: Action): string {
  switch (action.type) {
    case "play":
      return `play ${action.card} to ${action.to}`;
    case "move":
      return `move ${action.from} to ${action.to}`;
    default:
      return action.type;
  }
}

async function main(): Promise<void> {
  const suffix = Math.random().toString(16).slice(2, 8);
  const seats = [await player(`ts_a_${suffix}`), await player(`ts_b_${suffix}`)];
  const request: Schemas["CreateMatch"] = {
    rules: { preset: "standard", game_end: { single_hand: true } },
    seats: 2,
    visibility: "public",
  };
  const created = await call<Created>("POST", "/v1/matches", seats[0], request);
  const join: Schemas["JoinMatch"] = {};
  await call<Schemas["MatchSummary"]>("POST", `/v1/matches/${created.id}/join`, seats[1], join);

  let moves = 0;
  let last = "";
  for (;;) {
    const views = await Promise.all(
      seats.map((token) => call<View>("GET", `/v1/matches/${created.id}/view`, token)),
    );
    if (views[0].status !== "playing") break;
    const mover = views.findIndex((view) => view.turn === view.your_seat && view.legal_actions.length > 0);
    if (mover < 0) throw new Error(`nobody may move at version ${views[0].version}`);
    const action = choose(views[mover]);
    const move: Schemas["MoveRequest"] = { action, expected_version: views[mover].version };
    const after = await call<Moved>("POST", `/v1/matches/${created.id}/moves`, seats[mover], move);
    last = describe(action);
    moves += 1;
    if (after.version <= views[mover].version) throw new Error("a move did not advance the version");
    if (moves > 5000) throw new Error("the match did not end");
  }
  const feed = await call<Feed>("GET", `/v1/matches/${created.id}/events`, seats[0]);
  const ended = feed.events.find((item) => item.event.type === "game_ended");
  if (ended === undefined) throw new Error("no game_ended event in the feed");
  console.log(`the compiled TypeScript client played a whole match: ${moves} moves, the last ${last}`);
}

main().catch((error: unknown) => {
  console.error(`FAILED: ${String(error)}`);
  process.exit(1);
});
