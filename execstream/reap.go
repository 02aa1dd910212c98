package execstream

// RunMarker names the variable that marks every process of one run
// (inherited by its descendants, setsid or not): a program serving many
// sessions at once sets it to a value of the run's own in the command's
// environment, so that ReapMarked stops the orphans of that run without
// touching the runs of other sessions.
const RunMarker = "UAGENT_STREAM_RUN"
