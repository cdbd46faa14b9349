extension WebAssets {
    /// The now-playing view: cover, metadata, a scrubber moved from the pushed position by
    /// requestAnimationFrame (no polling), the sleep timer counting down, volume, custom actions,
    /// repeat/shuffle and the queue.
    static let scriptPlayer = #"""
        function show(view) {
          S.view = view;
          $('browse').hidden = view !== 'browse';
          $('now-playing').hidden = view !== 'nowPlaying';
          $('now-playing-button').dataset.open = String(view === 'nowPlaying');
          $('back-button').disabled = view === 'browse' && S.stack.length <= 1;
        }

        function onItem(item) {
          S.item = item;
          $('np-title').textContent = item ? (item.title || item.id) : 'Nothing playing';
          $('np-artist').textContent = (item && item.artist) || '';
          $('np-album').textContent = (item && item.album) || '';
          const image = $('np-cover');
          if (item && item.artworkKey) {
            const size = coverSize('nowPlaying');
            image.src = `/art?key=${encodeURIComponent(item.artworkKey)}&w=${size}&h=${size}&fallback=1`;
            image.dataset.key = item.artworkKey;
            image.hidden = false;
          } else { image.hidden = true; image.removeAttribute('src'); }
          $('np-title').dataset.id = item ? item.id : '';
        }

        function onPlayback(playback) {
          S.playback = playback;
          S.playbackAt = performance.now();
          const status = $('np-status');
          status.dataset.status = playback.status;
          status.textContent = playback.status + (playback.errorMessage ? ` (${playback.errorMessage})` : '');
          const playing = playback.status === 'playing' || playback.status === 'buffering';
          const toggle = $('play-pause-button');
          toggle.dataset.action = playing ? 'pause' : 'play';
          toggle.textContent = playing ? 'Pause' : 'Play';
          $('np-rate').textContent = playback.speed && playback.speed !== 1 ? `${playback.speed}\u00D7` : '';
          const repeat = $('repeat-button');
          repeat.dataset.mode = playback.repeatMode || 'off';
          repeat.textContent = `Repeat ${playback.repeatMode || 'off'}`;
          const shuffle = $('shuffle-button');
          shuffle.dataset.on = String(!!playback.shuffle);
          shuffle.textContent = `Shuffle ${playback.shuffle ? 'on' : 'off'}`;
          const actions = $('custom-actions');
          actions.replaceChildren(...(playback.customActions || []).map((action) => el('button', {
            'data-testid': 'custom-action', 'data-name': action.name, 'data-rotary': true, text: action.label,
            onclick: () => command('action', { name: action.name }) })));
          markQueue();
          animate();
        }

        function onSleepTimer(sleep) {
          S.sleep = sleep;
          S.sleepAt = performance.now();
          $('sleep-timer').dataset.mode = sleep.mode;
          animate();
        }

        function onVolume(volume) {
          S.volume = volume;
          const slider = $('volume');
          slider.disabled = !volume.remote || volume.control === 'fixed';
          $('volume-mute-button').disabled = !volume.remote;
          slider.dataset.remote = String(!!volume.remote);
          if (volume.remote) {
            slider.value = Math.round(volume.volume * 100);
            $('volume-label').textContent = `${Math.round(volume.volume * 100)}%${volume.muted ? ' (muted)' : ''}`;
            $('volume-mute-button').textContent = volume.muted ? 'Unmute phone' : 'Mute phone';
            $('volume-mute-button').dataset.muted = String(volume.muted);
          } else { $('volume-label').textContent = "the car's own volume"; }
        }

        function onQueue(queue) {
          S.queue = queue;
          $('queue').replaceChildren(...queue.items.map((entry, index) => el('li', {
            'data-testid': 'queue-item', 'data-index': index, 'data-id': entry.id, 'data-rotary': true, tabindex: 0,
            text: `${entry.title || entry.id}${entry.artist ? ' \u00B7 ' + entry.artist : ''}`,
            onclick: () => command('queueItem', { index }) })));
          markQueue();
        }

        function markQueue() {
          const current = S.playback ? S.playback.queueIndex : null;
          for (const node of document.querySelectorAll('[data-testid="queue-item"]')) node.dataset.current = String(Number(node.dataset.index) === current);
        }

        // One frame loop while something moves (a playing item, an armed sleep timer); it stops by itself.
        let frame = 0;
        function animate() { if (!frame) frame = requestAnimationFrame(tick); }
        function tick(now) {
          frame = 0;
          let moving = false;
          const playback = S.playback;
          if (playback && playback.positionMs != null) {
            const duration = playback.durationMs || (S.item && S.item.durationMs) || 0;
            let position = playback.positionMs + (now - S.playbackAt) * (playback.rate || 0);
            if (duration > 0) position = Math.min(position, duration);
            position = Math.max(0, position);
            const scrubber = $('scrubber');
            scrubber.dataset.positionMs = String(Math.round(position));
            scrubber.dataset.durationMs = String(duration);
            scrubber.dataset.rate = String(playback.rate || 0);
            $('scrubber-fill').style.width = duration > 0 ? `${(100 * position / duration).toFixed(2)}%` : '0';
            $('np-position').textContent = S.item && S.item.isLive ? 'live' : clock(position);
            $('np-duration').textContent = duration > 0 ? clock(duration) : '';
            moving = (playback.rate || 0) > 0 && (duration === 0 || position < duration);
          }
          const sleep = S.sleep;
          const label = $('sleep-timer');
          if (sleep && sleep.mode !== 'off' && sleep.remainingMs != null) {
            const left = Math.max(0, sleep.remainingMs - (now - S.sleepAt));
            label.dataset.remainingMs = String(Math.round(left));
            label.textContent = `${sleep.mode === 'endOfTrack' ? 'at end of track, ' : ''}in ${clock(left + 999)}`;
            moving = moving || left > 0;
          } else {
            label.dataset.remainingMs = '';
            label.textContent = sleep && sleep.mode === 'endOfTrack' ? 'at end of track' : 'off';
          }
          if (moving) animate();
        }

        function startPlayerControls() {
          $('play-pause-button').addEventListener('click', () => command($('play-pause-button').dataset.action));
          $('next-button').addEventListener('click', () => command('next'));
          $('previous-button').addEventListener('click', () => command('previous'));
          $('repeat-button').addEventListener('click', () => {
            const next = { off: 'all', all: 'one', one: 'off' }[$('repeat-button').dataset.mode] || 'off';
            command('repeat', { mode: next });
          });
          $('shuffle-button').addEventListener('click', () => command('shuffle', { on: $('shuffle-button').dataset.on !== 'true' }));
          $('scrubber').addEventListener('click', (event) => {
            const duration = Number($('scrubber').dataset.durationMs);
            if (!duration) return;
            const box = event.currentTarget.getBoundingClientRect();
            command('seek', { ms: Math.round(duration * (event.clientX - box.left) / box.width) });
          });
          $('sleep-timer-select').addEventListener('change', (event) => {
            const value = event.target.value;
            event.target.value = '';
            if (value === 'cancel') command('cancelSleep');
            else if (value === 'endOfTrack') command('sleep', { mode: 'endOfTrack' });
            else if (value) command('sleep', { ms: Number(value) });
          });
          $('volume').addEventListener('change', (event) => command('volume', { volume: Number(event.target.value) / 100 }));
          $('volume-mute-button').addEventListener('click', () => command('mute', { on: $('volume-mute-button').dataset.muted !== 'true' }));
          show('browse');
        }
        """#
}
