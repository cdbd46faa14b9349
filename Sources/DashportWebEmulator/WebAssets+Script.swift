extension WebAssets {
    /// The page's core: state, helpers, the event stream, connection state, toasts, the rotary
    /// keyboard, settings, recording and sound. Vanilla JavaScript, no external fetches.
    static let scriptCore = #"""
        'use strict';
        const $ = (id) => document.querySelector(`[data-testid="${id}"]`);
        const S = { settings: {}, connection: {}, hello: null, tabs: null, stack: [], item: null, playback: null,
          playbackAt: 0, queue: null, sleep: null, sleepAt: 0, volume: null, view: 'browse', events: 0 };
        window.dashportState = S;

        function el(tag, attrs, ...children) {
          const node = document.createElement(tag);
          for (const [key, value] of Object.entries(attrs || {})) {
            if (value === undefined || value === null || value === false) continue;
            if (key === 'class') node.className = value;
            else if (key === 'text') node.textContent = value;
            else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
            else node.setAttribute(key, value === true ? '' : String(value));
          }
          for (const child of children) if (child) node.append(child);
          return node;
        }

        function clock(ms) {
          const total = Math.max(0, Math.floor((ms || 0) / 1000));
          const h = Math.floor(total / 3600), m = Math.floor(total / 60) % 60, s = total % 60;
          const ss = String(s).padStart(2, '0');
          return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
        }

        // What needs the phone waits for the link: asked meanwhile it would only fail (503).
        const needsLink = ['/api/children', '/api/search', '/api/item', '/api/play', '/api/command'];
        async function api(path, body) {
          if (S.connection.state !== 'linked' && needsLink.includes(path.split('?')[0])) {
            toast('problem', 'the car is not linked to the phone right now');
            return null;
          }
          const init = body === undefined ? {} : { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) };
          let response;
          try { response = await fetch(path, init); } catch (error) { toast('problem', `the emulator does not answer: ${error}`); return null; }
          let json = null;
          try { json = await response.json(); } catch (error) { json = null; }
          if (!response.ok) { toast('problem', (json && json.error) || `${path}: HTTP ${response.status}`); return null; }
          return json;
        }

        async function command(name, extra) {
          const result = await api('/api/command', Object.assign({ command: name }, extra || {}));
          if (result && !result.accepted) toast('command', `${name}: refused (${result.reason || 'no reason'})${result.message ? ': ' + result.message : ''}`);
          return result;
        }

        function toast(kind, text, code) {
          const node = el('div', { class: 'toast', 'data-testid': 'toast', 'data-kind': kind, 'data-code': code, role: 'status', text });
          const area = $('toasts');
          area.append(node);
          while (area.children.length > 4) area.firstChild.remove();
          setTimeout(() => node.remove(), 8000);
        }

        // MARK: the event stream
        function listen() {
          const source = new EventSource('/events');
          const on = (name, handler) => source.addEventListener(name, (event) => {
            S.events += 1;
            try { handler(JSON.parse(event.data)); } catch (error) { console.warn('event', name, error); }
          });
          on('settings', onSettings);
          on('connection', onConnection);
          on('hello', (hello) => { S.hello = hello; $('search-field').disabled = !hello.supportsSearch; });
          on('tabs', onTabs);
          on('item', onItem);
          on('playback', onPlayback);
          on('queue', onQueue);
          on('sleepTimer', onSleepTimer);
          on('sleepTimerFired', () => toast('sleepTimer', 'Sleep timer: playback paused'));
          on('volume', onVolume);
          on('sessionError', (error) => toast('sessionError', error.message || String(error.code), error.code));
          on('problem', (problem) => toast('problem', problem.text));
          on('childrenChanged', onChildrenChanged);
          on('recording', onRecording);
          source.onerror = () => onConnection(Object.assign({}, S.connection, { state: 'emulator-lost', reason: 'the emulator does not answer; retrying' }));
        }

        function onConnection(info) {
          S.connection = info;
          const bar = $('connection');
          bar.dataset.state = info.state;
          $('connection-state').textContent = info.state;
          $('connection-phone').textContent = info.phoneName ? `phone: ${info.phoneName}` : '';
          $('connection-tls').textContent = info.tls ? `TLS: ${info.tls}` : '';
          $('connection-version').textContent = info.version ? `AAP ${info.version}` : '';
          $('connection-reason').textContent = info.state === 'linked' ? '' : (info.reason || '');
        }

        function onSettings(settings) {
          S.settings = settings;
          document.body.classList.toggle('night', !!settings.night);
        }

        function onRecording(recording) {
          const button = $('record-button');
          button.dataset.recording = String(!!recording.on);
          button.title = recording.on ? 'Stop recording and write the file' : 'Record the session';
          $('record-path').textContent = recording.path ? (recording.on ? `recording to ${recording.path}` : `recorded ${recording.path}`) : '';
        }

        // MARK: settings
        function openSettings() {
          const s = S.settings;
          $('settings-max-tabs').value = s.maxTabs || '';
          $('settings-legacy').checked = !!s.legacy;
          $('settings-max-depth').value = s.maxDepth || '';
          $('settings-art-size').value = s.artSize || '';
          $('settings-night').checked = !!s.night;
          $('settings').showModal();
        }

        async function applySettings() {
          const number = (id) => { const value = parseInt($(id).value, 10); return Number.isFinite(value) && value > 0 ? value : 0; };
          $('settings').close();
          await api('/api/settings', { maxTabs: number('settings-max-tabs'), legacy: $('settings-legacy').checked,
            maxDepth: number('settings-max-depth'), artSize: number('settings-art-size'), night: $('settings-night').checked });
        }

        // MARK: the rotary: arrows move the focus through the screen's controls, Enter pushes, Backspace goes back
        function rotaryItems() {
          return [...document.querySelectorAll('[data-rotary]')].filter((node) => !node.disabled && node.offsetParent !== null);
        }

        function rotate(step) {
          const items = rotaryItems();
          if (items.length === 0) return;
          const index = items.indexOf(document.activeElement);
          const next = items[(index < 0 ? (step > 0 ? 0 : items.length - 1) : (index + step + items.length) % items.length)];
          next.focus();
          next.scrollIntoView({ block: 'nearest' });
        }

        function onKey(event) {
          const typing = event.target instanceof HTMLInputElement && event.target.type !== 'range' && event.target.type !== 'checkbox';
          if ($('settings').open) return;
          if (event.key === 'ArrowDown' || event.key === 'ArrowRight') { if (!typing) { event.preventDefault(); rotate(1); } }
          else if (event.key === 'ArrowUp' || event.key === 'ArrowLeft') { if (!typing) { event.preventDefault(); rotate(-1); } }
          else if (event.key === 'Backspace' || event.key === 'Escape') { if (!typing) { event.preventDefault(); back(); } }
          else if (event.key === 'Enter' && !typing && document.activeElement && document.activeElement.dataset.rotary !== undefined) {
            event.preventDefault(); document.activeElement.click();
          }
        }

        // MARK: sound: /audio is the car's PCM (48 kHz, 16-bit, stereo), played through Web Audio
        window.dashportAudio = { samplesReceived: 0, bytesReceived: 0, muted: false, started: false, context: null, error: null };
        function audioContext() {
          const audio = window.dashportAudio;
          if (!audio.context && (window.AudioContext || window.webkitAudioContext)) {
            try {
              audio.context = new (window.AudioContext || window.webkitAudioContext)({ sampleRate: 48000 });
              audio.gain = audio.context.createGain();
              audio.gain.gain.value = audio.muted ? 0 : 1;
              audio.gain.connect(audio.context.destination);
              audio.nextTime = 0;
            } catch (error) { audio.error = String(error); }
          }
          if (audio.context && audio.context.state === 'suspended') audio.context.resume().catch(() => {});
          return audio.context;
        }

        function playPCM(bytes) {
          const audio = window.dashportAudio;
          const frames = Math.floor(bytes.length / 4);
          audio.samplesReceived += frames * 2;
          audio.bytesReceived += bytes.length;
          const context = audio.context;
          if (!context || context.state !== 'running' || frames === 0) return;
          const view = new DataView(bytes.buffer, bytes.byteOffset, frames * 4);
          const buffer = context.createBuffer(2, frames, 48000);
          const left = buffer.getChannelData(0), right = buffer.getChannelData(1);
          for (let i = 0; i < frames; i++) { left[i] = view.getInt16(4 * i, true) / 32768; right[i] = view.getInt16(4 * i + 2, true) / 32768; }
          const node = context.createBufferSource();
          node.buffer = buffer;
          node.connect(audio.gain);
          const at = Math.max(audio.nextTime, context.currentTime + 0.08);
          node.start(at);
          audio.nextTime = at + frames / 48000;
        }

        async function streamAudio() {
          const audio = window.dashportAudio;
          audio.started = true;
          let rest = new Uint8Array(0);
          try {
            const response = await fetch('/audio');
            const reader = response.body.getReader();
            $('audio-state').textContent = 'sound: on';
            for (;;) {
              const { value, done } = await reader.read();
              if (done) break;
              let bytes = value;
              if (rest.length) { const joined = new Uint8Array(rest.length + value.length); joined.set(rest); joined.set(value, rest.length); bytes = joined; }
              const whole = bytes.length - (bytes.length % 4);
              playPCM(bytes.subarray(0, whole));
              rest = bytes.slice(whole);
            }
          } catch (error) { audio.error = String(error); }
          $('audio-state').textContent = 'sound: reconnecting';
          setTimeout(streamAudio, 1000);
        }

        function toggleMute() {
          const audio = window.dashportAudio;
          audio.muted = !audio.muted;
          if (audio.gain) audio.gain.gain.value = audio.muted ? 0 : 1;
          $('mute-button').dataset.muted = String(audio.muted);
          $('mute-button').textContent = audio.muted ? 'Sound off' : 'Sound on';
        }

        function start() {
          $('back-button').addEventListener('click', back);
          $('search-form').addEventListener('submit', (event) => { event.preventDefault(); search($('search-field').value); });
          $('now-playing-button').addEventListener('click', () => show(S.view === 'nowPlaying' ? 'browse' : 'nowPlaying'));
          $('mute-button').addEventListener('click', toggleMute);
          $('record-button').addEventListener('click', () => api('/api/record', { on: $('record-button').dataset.recording !== 'true' }));
          $('settings-button').addEventListener('click', openSettings);
          $('settings-form').addEventListener('submit', (event) => {
            event.preventDefault();
            if (event.submitter && event.submitter.value === 'apply') applySettings(); else $('settings').close();
          });
          document.addEventListener('keydown', onKey);
          // Browsers start sound only after a gesture on the page.
          for (const name of ['pointerdown', 'keydown']) document.addEventListener(name, audioContext);
          startPlayerControls();
          listen();
          streamAudio();
        }
        document.addEventListener('DOMContentLoaded', start);

        """#
}
