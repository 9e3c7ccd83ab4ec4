// The fake host side of the webview API, loaded (with the page nonce) before main.js.
// Stable API for tests and benchmarks:
//   window.__posted          messages the webview posted (WebviewMessage objects), in order
//   window.__deliver(msg)     dispatches a host message synchronously, as a `message` event
//   window.__deliverAsync(msg) posts it with window.postMessage (arrives as its own task)
//   window.__state           the last setState() value
//   window.__cspViolations   securitypolicyviolation events seen ({ directive, blocked, sample })
(function () {
  'use strict';
  var initial = document.body.getAttribute('data-initial-state');
  var state = initial ? JSON.parse(initial) : undefined;
  var acquired = false;
  window.__posted = [];
  window.__cspViolations = [];
  Object.defineProperty(window, '__state', { get: function () { return state; } });
  document.addEventListener('securitypolicyviolation', function (e) {
    window.__cspViolations.push({ directive: e.violatedDirective, blocked: e.blockedURI, sample: e.sample });
  });
  window.acquireVsCodeApi = function () {
    if (acquired) {
      throw new Error('An instance of the VS Code API has already been acquired');
    }
    acquired = true;
    return Object.freeze({
      postMessage: function (message) {
        window.__posted.push(JSON.parse(JSON.stringify(message)));
      },
      getState: function () {
        return state;
      },
      setState: function (next) {
        state = JSON.parse(JSON.stringify(next));
        return next;
      },
    });
  };
  window.__deliver = function (message) {
    window.dispatchEvent(new MessageEvent('message', { data: message }));
  };
  window.__deliverAsync = function (message) {
    window.postMessage(message, '*');
  };
})();
