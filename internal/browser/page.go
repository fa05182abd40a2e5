package browser

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
)

// Page is one tab, attached to a DevTools session.
type Page struct {
	b       *Browser
	session string

	mu     sync.Mutex
	errors []string
	loaded chan struct{}
}

// Open opens url in a new tab with a viewport of width × height CSS pixels
// and waits until the page has loaded.
func (b *Browser) Open(ctx context.Context, url string, width, height int) (*Page, error) {
	var target struct {
		TargetID string `json:"targetId"`
	}
	if err := b.call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &target); err != nil {
		return nil, err
	}
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	if err := b.call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached); err != nil {
		return nil, err
	}
	p := &Page{b: b, session: attached.SessionID}
	b.mu.Lock()
	b.pages[p.session] = p
	b.mu.Unlock()
	for _, m := range []string{"Page.enable", "Runtime.enable", "Log.enable"} {
		if err := p.call(ctx, m, nil, nil); err != nil {
			return nil, err
		}
	}
	metrics := map[string]any{"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false}
	if err := p.call(ctx, "Emulation.setDeviceMetricsOverride", metrics, nil); err != nil {
		return nil, err
	}
	loaded := make(chan struct{})
	p.mu.Lock()
	p.loaded = loaded
	p.mu.Unlock()
	var nav struct {
		ErrorText string `json:"errorText"`
	}
	if err := p.call(ctx, "Page.navigate", map[string]any{"url": url}, &nav); err != nil {
		return nil, err
	}
	if nav.ErrorText != "" {
		return nil, fmt.Errorf("opening %s: %s", url, nav.ErrorText)
	}
	select {
	case <-loaded:
		return p, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("opening %s: no load event: %w", url, ctx.Err())
	}
}

func (p *Page) call(ctx context.Context, method string, params, result any) error {
	return p.b.call(ctx, p.session, method, params, result)
}

// event records what the page reports: console errors, uncaught exceptions,
// log entries of level error, and the end of loading.
func (p *Page) event(method string, params json.RawMessage) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch method {
	case "Page.loadEventFired":
		if p.loaded != nil {
			close(p.loaded)
			p.loaded = nil
		}
	case "Runtime.exceptionThrown":
		var e struct {
			Details struct {
				Text      string `json:"text"`
				Exception struct {
					Description string `json:"description"`
				} `json:"exception"`
				LineNumber int `json:"lineNumber"`
			} `json:"exceptionDetails"`
		}
		_ = json.Unmarshal(params, &e)
		p.errors = append(p.errors, fmt.Sprintf("uncaught exception at line %d: %s %s", e.Details.LineNumber+1, e.Details.Text, e.Details.Exception.Description))
	case "Runtime.consoleAPICalled":
		var e struct {
			Type string `json:"type"`
			Args []struct {
				Value       any    `json:"value"`
				Description string `json:"description"`
			} `json:"args"`
		}
		_ = json.Unmarshal(params, &e)
		if e.Type != "error" && e.Type != "assert" {
			return
		}
		var parts []string
		for _, a := range e.Args {
			if a.Description != "" {
				parts = append(parts, a.Description)
			} else {
				parts = append(parts, fmt.Sprint(a.Value))
			}
		}
		p.errors = append(p.errors, "console."+e.Type+": "+strings.Join(parts, " "))
	case "Log.entryAdded":
		var e struct {
			Entry struct {
				Level  string `json:"level"`
				Source string `json:"source"`
				Text   string `json:"text"`
				URL    string `json:"url"`
			} `json:"entry"`
		}
		_ = json.Unmarshal(params, &e)
		if e.Entry.Level == "error" {
			p.errors = append(p.errors, fmt.Sprintf("%s error: %s %s", e.Entry.Source, e.Entry.Text, e.Entry.URL))
		}
	}
}

// Errors returns the console errors, uncaught exceptions and error log
// entries the page reported so far.
func (p *Page) Errors() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.errors...)
}

// Eval evaluates a JavaScript expression in the page and decodes its value,
// which must be JSON-serialisable, into out.
func (p *Page) Eval(ctx context.Context, expr string, out any) error {
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		Exception *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	if err := p.call(ctx, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}, &r); err != nil {
		return err
	}
	if r.Exception != nil {
		return fmt.Errorf("evaluating %s: %s %s", expr, r.Exception.Text, r.Exception.Exception.Description)
	}
	return json.Unmarshal(r.Result.Value, out)
}

// Screenshot returns a PNG of the viewport.
func (p *Page) Screenshot(ctx context.Context) ([]byte, error) {
	var r struct {
		Data string `json:"data"`
	}
	if err := p.call(ctx, "Page.captureScreenshot", map[string]any{"format": "png"}, &r); err != nil {
		return nil, err
	}
	return base64.StdEncoding.DecodeString(r.Data)
}
