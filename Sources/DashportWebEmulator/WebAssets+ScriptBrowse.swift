extension WebAssets {
    /// Tabs, lists and grids with covers, group headings and badges, paging as the list scrolls,
    /// search, and the error screens with their resolution buttons.
    static let scriptBrowse = #"""
        // MARK: covers at the size the layout draws them (CSS pixels × device pixel ratio, within the profile's box)
        function coverSize(style) {
          const css = style === 'grid' || style === 'categoryGrid' ? 170 : style === 'nowPlaying' ? 320 : 56;
          let size = Math.ceil(css * (window.devicePixelRatio || 1));
          if (S.settings.artSize) size = Math.min(size, S.settings.artSize);
          return size;
        }

        function cover(key, style, testid) {
          if (!key) return el('div', { class: 'cover', 'data-testid': 'cover-missing' });
          const size = coverSize(style);
          return el('img', { class: 'cover', 'data-testid': testid || 'cover', 'data-key': key, 'data-size': size, alt: '', loading: 'lazy',
            src: `/art?key=${encodeURIComponent(key)}&w=${size}&h=${size}&fallback=1` });
        }

        // MARK: tabs
        function onTabs(tabs) {
          S.tabs = tabs;
          const bar = $('tabs');
          bar.replaceChildren(...tabs.items.map((tab) => el('button', {
            class: 'tab', role: 'tab', 'data-testid': 'tab', 'data-id': tab.id, 'data-rotary': true, text: tab.title,
            'aria-selected': S.stack.length > 0 && S.stack[0].id === tab.id ? 'true' : 'false', onclick: () => openTab(tab) })));
          bar.dataset.cap = tabs.cap;
          bar.dataset.offered = tabs.offered;
          const current = S.stack.length > 0 ? tabs.items.find((tab) => tab.id === S.stack[0].id) : null;
          if (!current && tabs.items.length > 0) openTab(tabs.items[0]);
          else if (current) reload();
        }

        function openTab(tab) {
          S.stack = [];
          for (const node of document.querySelectorAll('[data-testid="tab"]')) node.setAttribute('aria-selected', node.dataset.id === tab.id ? 'true' : 'false');
          push({ kind: 'children', id: tab.id, title: tab.title, style: tab.childStyle });
        }

        function push(location) {
          S.stack.push(Object.assign({ items: [], page: -1, hasMore: true, total: null, loading: false, outcome: null }, location));
          show('browse');
          loadNext(true);
        }

        function back() {
          if (S.view === 'nowPlaying') { show('browse'); return; }
          if (S.stack.length > 1) { S.stack.pop(); reload(); }
        }

        function search(query) {
          if (!query) return;
          if (S.stack.length > 0 && S.stack[S.stack.length - 1].kind === 'search') S.stack.pop();
          push({ kind: 'search', query, title: `Search: ${query}`, style: 'list' });
        }

        /// Draws the list on top again from its first page (after back, or a children-changed push).
        function reload() {
          const top = S.stack[S.stack.length - 1];
          if (!top) return;
          const pages = Math.max(1, top.page + 1);
          Object.assign(top, { items: [], page: -1, hasMore: true, total: null, outcome: null, reloadPages: pages });
          show('browse');
          loadNext(true);
        }

        function onChildrenChanged(changed) {
          const top = S.stack[S.stack.length - 1];
          if (top && top.kind === 'children' && (changed.parentId == null || changed.parentId === top.id)) reload();
        }

        async function loadNext(fresh) {
          const top = S.stack[S.stack.length - 1];
          if (!top || top.loading || !top.hasMore) return;
          if (S.connection.state !== 'linked') return;  // the next tabs event, after the link, draws it again
          top.loading = true;
          const page = top.page + 1;
          const path = top.kind === 'search'
            ? `/api/search?q=${encodeURIComponent(top.query)}&page=${page}`
            : `/api/children?parent=${encodeURIComponent(top.id)}&page=${page}`;
          const result = await api(path);
          top.loading = false;
          if (S.stack[S.stack.length - 1] !== top) return;  // navigated away meanwhile
          if (!result) { top.hasMore = false; render(); return; }
          top.outcome = result.outcome;
          if (result.outcome === 'items') {
            top.items = top.items.concat(result.items);
            top.page = page;
            top.total = result.total;
            top.hasMore = !!result.hasMore && result.items.length > 0;
          } else {
            top.hasMore = false;
            top.result = result;
          }
          render();
          if (top.reloadPages && top.page + 1 < top.reloadPages && top.hasMore) { loadNext(false); return; }
          top.reloadPages = 0;
        }

        function render() {
          const top = S.stack[S.stack.length - 1];
          const screen = $('screen');
          if (!top) { screen.replaceChildren(); return; }
          $('screen-title').textContent = top.title;
          $('back-button').disabled = S.stack.length <= 1 && S.view === 'browse';
          if (top.outcome === 'error') { screen.replaceChildren(errorScreen(top.result)); return; }
          if (top.outcome === 'rejected') {
            screen.replaceChildren(el('div', { class: 'error-screen', 'data-testid': 'rejected', 'data-reason': top.result.reason,
              text: `Not available (${top.result.reason})${top.result.message ? ': ' + top.result.message : ''}` }));
            return;
          }
          const grid = top.style === 'grid' || top.style === 'categoryGrid';
          const list = el('div', { class: grid ? 'grid' : 'list', 'data-testid': grid ? 'grid' : 'list', 'data-style': top.style || 'list',
            'data-parent': top.id || '', 'data-pages': top.page + 1, 'data-count': top.items.length, 'data-total': top.total });
          let group = null;
          for (const item of top.items) {
            if (item.group && item.group !== group) list.append(el('h3', { class: 'group-heading', 'data-testid': 'group-heading', text: item.group }));
            group = item.group || null;
            list.append(row(item, top));
          }
          const nodes = [list];
          if (top.items.length === 0 && top.outcome === 'items') nodes.push(el('div', { class: 'error-screen', 'data-testid': 'empty-list', text: 'Nothing here' }));
          if (top.hasMore) {
            const more = el('button', { class: 'load-more', 'data-testid': 'load-more', 'data-rotary': true, text: 'More', onclick: () => loadNext(false) });
            nodes.push(more);
            observeMore(more);
          }
          nodes.push(el('div', { class: 'page-status', 'data-testid': 'page-status',
            text: `${top.items.length}${top.total != null ? ' of ' + top.total : ''} items, ${top.page + 1} page${top.page === 0 ? '' : 's'}` }));
          const scroll = window.scrollY;
          screen.replaceChildren(...nodes);
          window.scrollTo(0, scroll);
        }

        let moreObserver = null;
        function observeMore(node) {
          if (!('IntersectionObserver' in window)) return;
          if (moreObserver) moreObserver.disconnect();
          moreObserver = new IntersectionObserver((entries) => { if (entries.some((entry) => entry.isIntersecting)) loadNext(false); });
          moreObserver.observe(node);
        }

        function row(item, parent) {
          const badges = [];
          if (item.explicit) badges.push(el('span', { class: 'badge', 'data-testid': 'badge-explicit', title: 'Explicit', text: 'E' }));
          const text = el('div', { class: 'text' },
            el('div', { class: 'title', 'data-testid': 'item-title', text: item.title }, ...badges),
            item.subtitle ? el('div', { class: 'subtitle', 'data-testid': 'item-subtitle', text: item.subtitle }) : null);
          if (typeof item.completion === 'number') {
            const done = Math.round(Math.min(Math.max(item.completion, 0), 1) * 100);
            const bar = el('div', { class: 'progress', 'data-testid': 'badge-completion', 'data-completion': done, title: `${done}% played` }, el('div'));
            bar.firstChild.style.width = `${done}%`;
            text.append(bar);
          }
          const node = el('div', { class: 'item', 'data-testid': 'list-item', 'data-id': item.id, 'data-rotary': true, tabindex: 0,
            'data-browsable': String(item.browsable), 'data-playable': String(item.playable), 'data-media-type': item.mediaType,
            onclick: () => activate(item, parent) }, cover(item.artworkKey, parent.style), text);
          if (item.browsable && item.playable) {
            node.append(el('button', { 'data-testid': 'item-play', 'data-rotary': true, text: '\u25B6', title: 'Play',
              onclick: (event) => { event.stopPropagation(); play(item, parent); } }));
          }
          return node;
        }

        function activate(item, parent) {
          if (item.browsable) push({ kind: 'children', id: item.id, title: item.title, style: item.childStyle });
          else if (item.playable) play(item, parent);
        }

        async function play(item, parent) {
          const result = await api('/api/play', { id: item.id, parent: parent.kind === 'children' ? parent.id : undefined });
          if (result && result.accepted) show('nowPlaying');
          else if (result) toast('command', `play ${item.title}: refused (${result.reason || 'no reason'})${result.message ? ': ' + result.message : ''}`);
        }

        function errorScreen(result) {
          const screen = el('div', { class: 'error-screen', 'data-testid': 'error-screen', 'data-code': result.code },
            el('div', { class: 'code', 'data-testid': 'error-code', text: result.code }),
            el('p', { 'data-testid': 'error-message', text: result.message }));
          if (result.resolution) {
            screen.append(el('button', { 'data-testid': 'error-resolution', 'data-rotary': true, 'data-url': result.resolution.url,
              text: result.resolution.label, onclick: (event) => {
                event.currentTarget.dataset.clicked = 'true';
                toast('resolution', `Continue on the phone: ${result.resolution.label}${result.resolution.url ? ' (' + result.resolution.url + ')' : ''}`);
              } }));
          }
          return screen;
        }

        """#
}
