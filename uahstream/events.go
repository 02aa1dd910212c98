// Package uahstream is the one reader and the one fold of every stream:
// a uagent run's v1 stream (a session of one run), and the stream of a
// whole session that uah, the harness built on uagent, writes with `uah
// exec --json` (or `uah run --stream`): uagent's own v1 events for each
// run, and the harness's session and engine events around and inside
// them, all in the v1 line shape (v, type, at).
//
// A [Reader] reads a stream once (or a run directory's events, without
// writing them out) into its [Session], which decides at the first line
// what the stream is (a session stream begins with session_opened) and
// folds every line: a stream.Fold per run, the session's totals, its
// messages and its streamed text. Each [Line] says what it changed, and a
// run that ends is handed over whole ([Ended]). Every view of the module
// (the transcript, the page, the spans, the table rows, the editor's
// updates) takes these Lines and keeps no fold of its own.
//
// The harness's events are another program's, not the uagent contract's:
// the stream package stays the contract, and their types are here,
// decoded by the stream package's parser. A type this package does not
// know stays a stream.UnknownDTO, its line raw. DESIGN.md ("Session
// streams") has the vocabulary and the order, read off uah's code and
// tests.
package uahstream

import "time"

// The session events' types.
const (
	TypeSessionOpened      = "session_opened"
	TypeInstructionsLoaded = "instructions_loaded"
	TypeInputQueued        = "input_queued"
	TypeInputSent          = "input_sent"
	TypeInputDelivered     = "input_delivered"
	TypeInputFailed        = "input_failed"
	TypeInputWithdrawn     = "input_withdrawn"
	TypeSettingsChanged    = "settings_changed"
	TypeIdle               = "idle"
	TypeNotice             = "notice"
	// uah's goal (/goal): set, changed or counted; a run begun for it; gone.
	TypeGoalUpdated   = "goal_updated"
	TypeGoalContinued = "goal_continued"
	TypeGoalCleared   = "goal_cleared"
)

// The engine events' types: inside a run, as the model works.
const (
	TypeTextDelta         = "text_delta"
	TypeReasoningDelta    = "reasoning_delta"
	TypeStreamReset       = "stream_reset"
	TypeReconnecting      = "reconnecting"
	TypeReconnectEnded    = "reconnect_ended"
	TypeCompactionStarted = "compaction_started"
	TypeCompacted         = "compacted"
	TypeWebSearch         = "web_search"
	TypeRewound           = "rewound"
	TypeEffortUpdatesOff  = "effort_updates_off"
	// uah's auto-reviewer judged a command before it ran: a model call of
	// its own, whose tokens are in no run's summary.
	TypeAutoReviewed = "auto_reviewed"
)

// SettingsDTO is a session's engine settings.
type SettingsDTO struct {
	Provider    string `json:"provider"`
	Model       string `json:"model"`
	Effort      string `json:"effort"`
	ServiceTier string `json:"service_tier,omitempty"`
	Workspace   string `json:"workspace"`
}

// SessionOpenedDTO is the first line of a session stream: the session's
// id (every run's session_id), whether it resumes an earlier one, and
// where and how it runs.
type SessionOpenedDTO struct {
	At       time.Time   `json:"at"`
	ID       string      `json:"id"`
	Resumed  bool        `json:"resumed"`
	Engine   string      `json:"engine"`
	Settings SettingsDTO `json:"settings"`
}

// InstructionsLoadedDTO is the instruction files the session read.
type InstructionsLoadedDTO struct {
	At        time.Time `json:"at"`
	Files     []string  `json:"files"`
	Bytes     int64     `json:"bytes"`
	Truncated bool      `json:"truncated"`
}

// InputQueuedDTO is a message the session accepted.
type InputQueuedDTO struct {
	At   time.Time `json:"at"`
	ID   string    `json:"id"`
	Text string    `json:"text"`
}

// InputSentDTO is the messages a run is started with, before its
// run_started.
type InputSentDTO struct {
	At  time.Time `json:"at"`
	IDs []string  `json:"ids"`
}

// InputDeliveredDTO is a message the run received: it comes right after
// the user_message that echoes it.
type InputDeliveredDTO struct {
	At time.Time `json:"at"`
	ID string    `json:"id"`
}

// InputFailedDTO is messages that no run received: a run that could not
// start, or messages never accepted when the session closed.
type InputFailedDTO struct {
	At     time.Time `json:"at"`
	IDs    []string  `json:"ids"`
	Reason string    `json:"reason"`
}

// InputWithdrawnDTO is a queued message taken back before it was sent.
type InputWithdrawnDTO struct {
	At time.Time `json:"at"`
	ID string    `json:"id"`
}

// SettingsChangedDTO is new settings, applied live or from the next run.
type SettingsChangedDTO struct {
	At       time.Time   `json:"at"`
	Settings SettingsDTO `json:"settings"`
	Applied  string      `json:"applied"` // live or next_run
}

// IdleDTO says nothing is queued: the session waits for a message.
type IdleDTO struct {
	At time.Time `json:"at"`
}

// NoticeDTO is a message of the harness to the person: level info,
// warning or error.
type NoticeDTO struct {
	At      time.Time `json:"at"`
	Level   string    `json:"level"`
	Message string    `json:"message"`
}

// TextDeltaDTO is assistant text as the model writes it, before the
// response's assistant_message, which is authoritative and replaces it.
type TextDeltaDTO struct {
	At     time.Time `json:"at"`
	ItemID string    `json:"item_id"`
	Text   string    `json:"text"`
	Final  bool      `json:"final,omitempty"`
}

// ReasoningDeltaDTO is reasoning as the model writes it, before the
// response's reasoning line, which replaces it.
type ReasoningDeltaDTO struct {
	At     time.Time `json:"at"`
	ItemID string    `json:"item_id"`
	Part   int       `json:"part"`
	Text   string    `json:"text"`
}

// StreamResetDTO says that what streamed since the last response is void
// (a retry, or a failed request).
type StreamResetDTO struct {
	At time.Time `json:"at"`
}

// ReconnectingDTO is a retry of the provider's connection.
type ReconnectingDTO struct {
	At          time.Time `json:"at"`
	Attempt     int       `json:"attempt"`
	MaxAttempts int       `json:"max_attempts"`
	DelayMS     int64     `json:"delay_ms"`
	Reason      string    `json:"reason"`
	Offline     bool      `json:"offline,omitempty"`
}

// ReconnectEndedDTO ends the retries: ok, or given up.
type ReconnectEndedDTO struct {
	At time.Time `json:"at"`
	OK bool      `json:"ok"`
}

// CompactionStartedDTO is the conversation being compacted.
type CompactionStartedDTO struct {
	At      time.Time `json:"at"`
	Trigger string    `json:"trigger"`
	Tokens  int64     `json:"tokens"`
}

// CompactedDTO is a compaction's end. Stats is kept as its JSON text.
type CompactedDTO struct {
	At          time.Time `json:"at"`
	Trigger     string    `json:"trigger"`
	Summary     string    `json:"summary,omitempty"`
	Error       string    `json:"error,omitempty"`
	Interrupted bool      `json:"interrupted,omitempty"`
	Warning     string    `json:"warning,omitempty"`
	Stats       Raw       `json:"stats,omitempty"`
}

// WebSearchDTO is a web search of the model: begun, or done.
type WebSearchDTO struct {
	At      time.Time `json:"at"`
	ItemID  string    `json:"item_id"`
	Done    bool      `json:"done"`
	Action  string    `json:"action,omitempty"`
	Query   string    `json:"query,omitempty"`
	URL     string    `json:"url,omitempty"`
	Pattern string    `json:"pattern,omitempty"`
}

// RewoundDTO is the conversation taken back to a message.
type RewoundDTO struct {
	At        time.Time `json:"at"`
	MessageID string    `json:"message_id"`
	Tokens    int64     `json:"tokens,omitempty"`
}

// EffortUpdatesOffDTO says the backend refused to change the effort of a
// run under way: the effort changes with the next run.
type EffortUpdatesOffDTO struct {
	At      time.Time `json:"at"`
	Message string    `json:"message"`
	Error   string    `json:"error"`
}

// GoalDTO is a session's goal (uah's /goal), as far as a reader needs it:
// its objective, where it stands (active, paused, blocked,
// budget_limited, complete) and what it used.
type GoalDTO struct {
	ID               string `json:"goal_id"`
	Objective        string `json:"objective"`
	Status           string `json:"status"`
	TokenBudget      int64  `json:"token_budget,omitempty"`
	TokensUsed       int64  `json:"tokens_used"`
	TimeUsedSeconds  int64  `json:"time_used_seconds"`
	Continuations    int64  `json:"continuations"`
	MaxContinuations int64  `json:"max_continuations,omitempty"`
	// Reason says why uah (not the model or the user) stopped it.
	Reason string `json:"reason,omitempty"`
	// CreatedAt is when the goal was set, UpdatedAt when it last changed.
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// GoalUpdatedDTO is the session's goal after a change: Change is set,
// edited, status, usage or restored; By who changed its status (user,
// model, uah).
type GoalUpdatedDTO struct {
	At     time.Time `json:"at"`
	Goal   GoalDTO   `json:"goal"`
	Change string    `json:"change"`
	By     string    `json:"by,omitempty"`
}

// GoalContinuedDTO is a run the session began on its own for its goal;
// the run's user_message is the message it sent.
type GoalContinuedDTO struct {
	At   time.Time `json:"at"`
	Goal GoalDTO   `json:"goal"`
}

// GoalClearedDTO says the session has no goal any more.
type GoalClearedDTO struct {
	At time.Time `json:"at"`
}

// AutoReviewedDTO is uah's auto-reviewer's verdict on a command that
// needed approval, before it ran: Outcome allow, deny, ask_user (the user
// decides) or error (the reviewer failed), with the Risk and Reason it
// gave. DurationMS is how long the review took; the tokens are its model
// calls' (input includes the cached input), spent outside every run's
// summary. Delta, Forked and Commands came later: the review went on from
// the last one with what changed since, ran on a copy of the review
// conversation, and ran that many read-only commands of its own.
type AutoReviewedDTO struct {
	At                time.Time `json:"at"`
	Command           string    `json:"command"`
	Outcome           string    `json:"outcome"`
	Risk              string    `json:"risk,omitempty"`
	Reason            string    `json:"reason,omitempty"`
	DurationMS        int64     `json:"duration_ms"`
	InputTokens       int64     `json:"input_tokens"`
	CachedInputTokens int64     `json:"cached_input_tokens"`
	OutputTokens      int64     `json:"output_tokens"`
	Delta             bool      `json:"delta,omitempty"`
	Forked            bool      `json:"forked,omitempty"`
	Commands          int64     `json:"commands,omitempty"`
}
