import DashportHTTP

/// The page's files, shipped in the binary: one HTML page, one stylesheet, one script. No file
/// of the page is ever read from disk, and the page fetches nothing from outside this server
/// (its Content-Security-Policy says so to the browser too).
enum WebAssets {
    static let contentSecurityPolicy =
        "default-src 'self'; img-src 'self' data:; connect-src 'self'; style-src 'self'; script-src 'self'; "
        + "media-src 'self' blob:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

    static let page = HTTPResponse(
        contentType: "text/html; charset=utf-8", body: Array(html.utf8),
        headers: [HTTPField("Content-Security-Policy", contentSecurityPolicy)])
    static let stylesheet = HTTPResponse(contentType: "text/css; charset=utf-8", body: Array(css.utf8))
    static let script = HTTPResponse(
        contentType: "text/javascript; charset=utf-8", body: Array((scriptCore + scriptBrowse + scriptPlayer).utf8))

    static let html = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Dashport head unit</title>
        <link rel="icon" href="data:,">
        <link rel="stylesheet" href="/app.css">
        <script src="/app.js" defer></script>
        </head>
        <body>
        <header class="bar">
          <button data-testid="back-button" data-rotary class="icon" title="Back (Backspace)">&#8592;</button>
          <nav data-testid="tabs" class="tabs" role="tablist"></nav>
          <form data-testid="search-form" class="search">
            <input data-testid="search-field" data-rotary type="search" placeholder="Search" autocomplete="off">
            <button data-testid="search-button" data-rotary type="submit">Search</button>
          </form>
          <button data-testid="now-playing-button" data-rotary title="Now playing">&#9835;</button>
          <button data-testid="mute-button" data-rotary data-muted="false" title="Mute the page's sound">Sound on</button>
          <button data-testid="record-button" data-rotary data-recording="false" title="Record the session">&#9679;</button>
          <button data-testid="settings-button" data-rotary title="Car profile">&#9881;</button>
        </header>
        <div data-testid="connection" class="connection" data-state="connecting">
          <span data-testid="connection-state">connecting</span>
          <span data-testid="connection-phone"></span>
          <span data-testid="connection-tls"></span>
          <span data-testid="connection-version"></span>
          <span data-testid="connection-reason"></span>
          <span data-testid="audio-state"></span>
          <span data-testid="record-path"></span>
        </div>
        <main>
          <section data-testid="browse" class="browse">
            <h1 data-testid="screen-title"></h1>
            <div data-testid="screen" class="screen"></div>
          </section>
          <section data-testid="now-playing" class="now-playing" hidden>
            <img data-testid="np-cover" class="np-cover" alt="" hidden>
            <div class="np-text">
              <div data-testid="np-title" class="np-title"></div>
              <div data-testid="np-artist"></div>
              <div data-testid="np-album"></div>
              <div data-testid="np-status" data-status="none"></div>
            </div>
            <div data-testid="scrubber" class="scrubber" data-position-ms="0" data-duration-ms="0" data-rate="0">
              <div data-testid="scrubber-fill" class="fill"></div>
            </div>
            <div class="times"><span data-testid="np-position">0:00</span><span data-testid="np-rate"></span><span data-testid="np-duration"></span></div>
            <div class="controls">
              <button data-testid="repeat-button" data-rotary data-mode="off">Repeat off</button>
              <button data-testid="previous-button" data-rotary>Previous</button>
              <button data-testid="play-pause-button" data-rotary data-action="play">Play</button>
              <button data-testid="next-button" data-rotary>Next</button>
              <button data-testid="shuffle-button" data-rotary data-on="false">Shuffle off</button>
            </div>
            <div class="controls">
              <label>Sleep <select data-testid="sleep-timer-select" data-rotary>
                <option value="">set…</option><option value="60000">1 min</option><option value="300000">5 min</option>
                <option value="900000">15 min</option><option value="1800000">30 min</option>
                <option value="endOfTrack">end of track</option><option value="cancel">off</option>
              </select></label>
              <span data-testid="sleep-timer" data-mode="off" data-remaining-ms=""></span>
              <label>Volume <input data-testid="volume" data-rotary type="range" min="0" max="100" value="0" disabled></label>
              <span data-testid="volume-label"></span>
              <button data-testid="volume-mute-button" data-rotary disabled>Mute phone</button>
            </div>
            <div data-testid="custom-actions" class="controls"></div>
            <h2>Queue</h2>
            <ol data-testid="queue" class="queue"></ol>
          </section>
        </main>
        <dialog data-testid="settings" class="settings">
          <form method="dialog" data-testid="settings-form">
            <h2>Car profile</h2>
            <label>Max tabs <input data-testid="settings-max-tabs" type="number" min="0" max="20" placeholder="4"></label>
            <label><input data-testid="settings-legacy" type="checkbox"> Legacy error screens</label>
            <label>Max depth <input data-testid="settings-max-depth" type="number" min="0" max="50" placeholder="no limit"></label>
            <label>Art size <input data-testid="settings-art-size" type="number" min="0" max="2048" placeholder="256"></label>
            <label><input data-testid="settings-night" type="checkbox"> Night</label>
            <div class="controls">
              <button data-testid="settings-apply" value="apply">Apply</button>
              <button data-testid="settings-cancel" value="cancel">Cancel</button>
            </div>
          </form>
        </dialog>
        <div data-testid="toasts" class="toasts" aria-live="polite"></div>
        </body>
        </html>
        """#
}
