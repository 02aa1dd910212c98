package ssestream

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"html"
	"io"
)

// WriteHTML writes the run (or the session) rec recorded as one
// self-contained HTML file: the page of [Handler], its style and script
// inline, and what the page would ask the server for (the events as
// /events sends them, /summary, /session, /intervals) embedded, so that
// it reads offline and asks for nothing: its Content-Security-Policy
// allows the page's own inline style and script (by their hashes) and no
// request at all. Every string of the stream is in the file as JSON text
// (with <, > and & escaped), and reaches the page as text, as it does
// served. rec must have ended (End); WriteHTML reads it and changes
// nothing.
func WriteHTML(w io.Writer, rec *Recording) error {
	size, end, _ := rec.state()
	if end == nil {
		return errors.New("stream: html: the recording has not ended")
	}
	var events bytes.Buffer
	if _, err := io.Copy(&events, io.NewSectionReader(rec.spool, 0, size)); err != nil {
		return err
	}
	events.WriteString("event: " + EventEnd + "\ndata: ")
	events.Write(end)
	events.WriteString("\n\n")
	data := map[string]any{"events": events.String()}
	for name, get := range map[string]func() ([]byte, error){"summary": rec.summaryJSON, "session": rec.sessionJSON, "intervals": rec.intervalsJSON} {
		b, err := get()
		if err != nil {
			return err
		}
		data[name] = json.RawMessage(b)
	}
	embedded, err := json.Marshal(data) // HTML-escaped: no "</script" can end the element
	if err != nil {
		return err
	}
	page, err := web.ReadFile("web/index.html")
	if err != nil {
		return err
	}
	css, err := web.ReadFile("web/app.css")
	if err != nil {
		return err
	}
	js, err := web.ReadFile("web/app.js")
	if err != nil {
		return err
	}
	hash := func(b []byte) string {
		s := sha256.Sum256(b)
		return "'sha256-" + base64.StdEncoding.EncodeToString(s[:]) + "'"
	}
	csp := `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src ` + hash(js) + `; style-src ` + hash(css) +
		`; img-src 'none'; base-uri 'none'; form-action 'none'">`
	page = bytes.Replace(page, []byte(`<meta charset="utf-8">`), []byte(`<meta charset="utf-8">`+"\n"+csp), 1)
	page = bytes.Replace(page, []byte(`<link rel="stylesheet" href="/app.css">`), append(append([]byte("<style>"), css...), "</style>"...), 1)
	page = bytes.Replace(page, []byte(`<script src="/app.js" defer></script>`+"\n"), nil, 1)
	tail := append([]byte(`<script type="application/json" id="embedded">`), embedded...)
	tail = append(tail, "</script>\n<script>"...)
	tail = append(append(tail, js...), "</script>\n</body>"...)
	page = bytes.Replace(page, []byte("<body>"), []byte(`<body data-file="`+html.EscapeString("1")+`">`), 1)
	page = bytes.Replace(page, []byte("</body>"), tail, 1)
	_, err = w.Write(page)
	return err
}
