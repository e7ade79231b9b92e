/**
 * Every number the tracker runs on, each with the reason for it. Limits the
 * server enforces come from the API contract (section 8); sending past them
 * would only earn a 413, so the tracker splits or drops (and counts) first.
 */

/**
 * A new full snapshot (a checkpoint) at most every 5 minutes or 4 MiB of recorded events, whichever comes first,
 * so any moment of a long session is at most that far from a point a replay can start at (sessions.events `from`).
 * A real application's snapshot is 100 to 200 KB of JSON with its stylesheets, so 5 minutes keeps the checkpoints
 * of a quiet session to a few hundred bytes a second.
 */
export const CHECKPOINT_MS = 5 * 60_000
export const CHECKPOINT_BYTES = 4 * 1024 * 1024
/**
 * The full snapshot is serialized in slices of about 8 ms (snapshot.ts), each one task: a long task is 50 ms
 * (W3C Long Tasks), and 8 ms leaves half of a 60 Hz frame to the page. rrweb's one-task snapshot took 174 to
 * 394 ms on a page of 10,000 elements (issue 33).
 */
export const SNAPSHOT_SLICE_MS = 8
/**
 * A page of up to 300 elements is serialized in the task that asks, as rrweb did: a few ms (at most 20 cold, on
 * a page just laid out again), and nothing between a small page's snapshot and its first changes.
 */
export const SNAPSHOT_SMALL_PAGE = 300

/** Contract, section 8: "flush every 10 seconds or at 256 KB, whichever comes first". */
export const FLUSH_INTERVAL_MS = 10_000
export const FLUSH_BYTES = 256 * 1024
/**
 * The session dictionary of added nodes (compact.ts) keeps at most this many contents and characters of their
 * JSON on the visitor's page (under 2 MB with the Map's own cost, issue 47); the least recently used go first.
 */
export const DICT_MAX_ENTRIES = 8_000
export const DICT_MAX_CHARS = 1_000_000
/**
 * A text or attribute value enters that dictionary when its JSON is at least this long (a string of 8 characters
 * or more, or a style object such as {"width":"9px"}): an index is 1 to 4 digits, so a shorter value is left
 * inline, where it costs no more and holds no room. Part of the wire form: the events API reads by the same rule.
 */
export const DICT_MIN_VALUE_JSON = 10
/** While someone follows this session live (a chunk's answer says `watched`): flush this often unless the answer names another (`flushMs`), never under LIVE_FLUSH_FLOOR_MS. */
export const LIVE_FLUSH_MS = 1_500
export const LIVE_FLUSH_FLOOR_MS = 1_000
/** ...for at most this long after the last answer that said so, then back to FLUSH_INTERVAL_MS. */
export const LIVE_HOLD_MS = 3 * 60_000

/** Contract, section 8: the server refuses a chunk over 1,000,000 bytes with 413. */
export const CHUNK_CAP_BYTES = 1_000_000
/** Contract, section 8: the server refuses a signals batch over 256,000 bytes with 413. */
export const SIGNALS_CAP_BYTES = 256_000
/** Contract, section 8: entries per batch. */
export const MAX_VIEWS = 200
export const MAX_CLICKS = 2000
export const MAX_ERRORS = 100
/** Contract, section 8: string bounds the server validates. */
export const MAX_URL = 2000
export const MAX_TEXT = 256
export const MAX_TAG = 40
/** Contract schema: pixel fields are integers up to 1,000,000; an endless-scroll page can be taller, and an entry out of bounds would be dropped whole. */
export const MAX_PIXELS = 1_000_000
export const px = (n: number) => Math.min(MAX_PIXELS, Math.max(0, Math.round(n || 0)))
/** The document's height in pixels, for scroll depth and a click's place on the page (reading it needs the layout done). */
export const docHeight = () => Math.max(document.documentElement.scrollHeight, document.body ? document.body.scrollHeight : 0)

/**
 * Browsers allow about 64 KiB of keepalive request bodies in flight per page
 * (Fetch standard, "keepalive" quota; sendBeacon shares it). 60,000 leaves room
 * for a beacon of signals beside the last chunk.
 */
export const KEEPALIVE_BUDGET_BYTES = 60_000

/**
 * The session ends after 30 minutes without interaction: the convention of
 * web analytics (Google Analytics' default session timeout), so session
 * counts compare with what site owners already know.
 */
export const SESSION_IDLE_MS = 30 * 60 * 1000
/** Activity refreshes the stored session at most this often: a localStorage write per mousemove would cost more than it tells. */
export const ACTIVITY_WRITE_MS = 5_000

/**
 * Retries of a failed upload (network error, timeout, 429 or 5xx; never another 4xx):
 * 4 retries with exponential backoff from 1 s, capped at 30 s, plus up to 50 %
 * random jitter so that many tabs hit by one outage do not retry in lockstep;
 * after a 429 at least its Retry-After (under the same 30 s cap).
 */
export const RETRIES = 4
export const BACKOFF_BASE_MS = 1_000
export const BACKOFF_CAP_MS = 30_000
/** An upload that has not answered in 20 s is treated as failed (and retried): a hung request must not hold the queue forever. */
export const REQUEST_TIMEOUT_MS = 20_000
/**
 * Unsent recording bytes held while the server is unreachable. Past this the
 * oldest chunks are dropped (and counted): a tracker must not grow a page's
 * memory without bound during an outage.
 */
export const MAX_QUEUED_BYTES = 4 * 1024 * 1024

/**
 * Recording held at unload (a session under the minimum duration) kept for
 * the tab's next page load, in sessionStorage: about 1 MB of JSON text, a
 * fifth of the 5 MB browsers give an origin there, so the site keeps room.
 */
export const HELD_CAP_CHARS = 1_000_000

/**
 * Rage click: 3 or more clicks within 1 s, each within 30 px of the first.
 * Three, because a double click is a normal gesture and a third rapid click is
 * not (FullStory and Microsoft Clarity both start counting rage at three rapid
 * clicks); 1 s and 30 px, because repeated clicks on one stuck control land
 * within a fingertip's width and come faster than a person reads a response.
 */
export const RAGE_CLICKS = 3
export const RAGE_WINDOW_MS = 1_000
export const RAGE_RADIUS_PX = 30

/**
 * Dead click: an interactive-looking element is clicked and within 1 s nothing
 * follows (no DOM change, scroll, input or navigation). 1 s is the limit past
 * which a user stops feeling the interface answered them (Nielsen, "Response
 * Times: The 3 Important Limits", 1993).
 */
export const DEAD_CLICK_MS = 1_000
/** Error click: a JavaScript error within 1 s of the click; errors thrown by a click handler arrive within the same task. */
export const ERROR_CLICK_MS = 1_000

/**
 * Quick back: the visitor left a page by going back to the page before it
 * within 5 s of arriving. Five seconds is shorter than reading anything; it is
 * the "pogo-sticking" window search engines describe for bounced results.
 */
export const QUICK_BACK_MS = 5_000

/** Exit: a pagehide within 2 s of a click on a same-site link (or a form submit) is taken as navigation within the site, so the view is not the session's exit. */
export const INTERNAL_NAV_MS = 2_000

/** Click labels: visible text is cut to 100 characters; a label longer than that names a container, not a control. */
export const LABEL_CHARS = 100
/** Selectors climb at most 5 elements before giving up on a unique anchor. */
export const SELECTOR_DEPTH = 5

/** Signals held in memory between flushes; past these they are dropped and counted in `dropped`. */
export const MAX_PENDING_CLICKS = MAX_CLICKS
export const MAX_PENDING_ERRORS = MAX_ERRORS
/** Identical error messages reported per page load: a handler that throws on every frame must not fill the batch. */
export const SAME_ERROR_LIMIT = 5

/**
 * Capture settings cached from the last answer are used for 5 minutes before
 * they are asked for again: the same freshness as tracker.js itself (served
 * with max-age=300), so a settings change reaches visitors as fast as a new
 * tracker does, and a visit of many pages asks once.
 */
export const CAPTURE_FRESH_MS = 5 * 60_000

/**
 * Console capture (capture.js): at most 20 console events a second are
 * recorded; past that, in the same second, a call costs one counter increment
 * (a logging loop of thousands must not slow the page or fill a chunk), and the
 * next recorded second starts with one line saying how many were left out.
 */
export const CONSOLE_PER_SECOND = 20
/**
 * Console calls kept by tracker.js before capture.js runs (the last ones win):
 * enough for a page's start-up logging, and a bounded cost in memory for the
 * arguments they hold.
 */
export const EARLY_CONSOLE_CALLS = 100
/** Arguments recorded per console call, and characters of each once serialised: 10 KB per event at most. */
export const CONSOLE_ARGS = 10
export const CONSOLE_ARG_CHARS = 1000
/** Objects are followed 3 levels deep and show at most 20 keys or items per level, like a collapsed devtools preview. */
export const CONSOLE_DEPTH = 3
export const CONSOLE_KEYS = 20
/** Stack lines kept with an error: enough to find the throwing frame and its callers. */
export const STACK_LINES = 10
/**
 * A masked field's value is removed from console and network events when it is
 * at least 3 characters long: shorter strings are too common to blank out
 * everywhere they appear, and tell nothing on their own.
 */
export const SECRET_MIN_CHARS = 3
/**
 * Console errors and warnings, and failed requests, named in the signals for
 * search (sessions.list `console`, `request`), their texts cut to the server's
 * 256 characters: each distinct one once, the first time, within the first 50
 * of a page load (capture.js), and at most 5 of each per signals batch
 * (tracker.js). The recording holds all of them; these only make the session
 * findable, and the server keeps a session's first 16 anyway.
 */
export const MAX_FOUND_PER_PAGE = 50
export const MAX_FOUND_PER_BATCH = 5
/**
 * Canvas frames (capture.js, canvas.ts): a canvas larger than this on its longer
 * side is scaled down before encoding, the replay scaling it back up (a 4K
 * canvas would otherwise make a frame of several hundred kB); a frame whose
 * data URL is still longer than CANVAS_MAX_URL characters is not sent, well
 * under the 1,000,000-byte chunk cap that would drop its whole chunk.
 */
export const CANVAS_MAX_SIDE = 1600
export const CANVAS_MAX_URL = 400_000
