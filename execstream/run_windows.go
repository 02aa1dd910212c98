//go:build windows

package execstream

import (
	"os"
	"os/exec"
	"syscall"
	"unsafe"
)

// The job object calls of kernel32, through the standard library's loader,
// so that the package keeps to the standard library.
var (
	kernel32                     = syscall.NewLazyDLL("kernel32.dll")
	procCreateJobObjectW         = kernel32.NewProc("CreateJobObjectW")
	procSetInformationJobObject  = kernel32.NewProc("SetInformationJobObject")
	procAssignProcessToJobObject = kernel32.NewProc("AssignProcessToJobObject")
	procTerminateJobObject       = kernel32.NewProc("TerminateJobObject")
	procGenerateConsoleCtrlEvent = kernel32.NewProc("GenerateConsoleCtrlEvent")
)

const (
	jobObjectExtendedLimitInformation = 9      // JOBOBJECTINFOCLASS
	jobObjectLimitKillOnJobClose      = 0x2000 // JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	processSetQuota                   = 0x0100 // PROCESS_SET_QUOTA
	ctrlBreakEvent                    = 1      // CTRL_BREAK_EVENT
)

// jobBasicLimits and jobExtendedLimits are JOBOBJECT_BASIC_LIMIT_INFORMATION
// and JOBOBJECT_EXTENDED_LIMIT_INFORMATION.
type jobBasicLimits struct {
	PerProcessUserTimeLimit int64
	PerJobUserTimeLimit     int64
	LimitFlags              uint32
	MinimumWorkingSetSize   uintptr
	MaximumWorkingSetSize   uintptr
	ActiveProcessLimit      uint32
	Affinity                uintptr
	PriorityClass           uint32
	SchedulingClass         uint32
}

type jobExtendedLimits struct {
	BasicLimitInformation jobBasicLimits
	IoInfo                [6]uint64 // IO_COUNTERS
	ProcessMemoryLimit    uintptr
	JobMemoryLimit        uintptr
	PeakProcessMemoryUsed uintptr
	PeakJobMemoryUsed     uintptr
}

// procGroup is the process's console process group and the job object
// that holds its tree; job is 0 when the job could not be set up.
type procGroup struct {
	pid int
	job syscall.Handle
}

// prepare starts the process in a new console process group, so that a
// CTRL_BREAK_EVENT reaches it and its descendants but not this process.
func prepare(cmd *exec.Cmd) error {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= syscall.CREATE_NEW_PROCESS_GROUP
	return nil
}

// attach puts the started process in a job object that kills its members
// when it is terminated or closed.
func attach(p *os.Process) procGroup {
	g := procGroup{pid: p.Pid}
	job, _, _ := procCreateJobObjectW.Call(0, 0)
	if job == 0 {
		return g
	}
	var info jobExtendedLimits
	info.BasicLimitInformation.LimitFlags = jobObjectLimitKillOnJobClose
	if ok, _, _ := procSetInformationJobObject.Call(job, jobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), unsafe.Sizeof(info)); ok == 0 {
		syscall.CloseHandle(syscall.Handle(job))
		return g
	}
	h, err := syscall.OpenProcess(processSetQuota|syscall.PROCESS_TERMINATE, false, uint32(p.Pid))
	if err != nil {
		syscall.CloseHandle(syscall.Handle(job))
		return g
	}
	defer syscall.CloseHandle(h)
	if ok, _, _ := procAssignProcessToJobObject.Call(job, uintptr(h)); ok == 0 {
		syscall.CloseHandle(syscall.Handle(job))
		return g
	}
	g.job = syscall.Handle(job)
	return g
}

// interrupt sends CTRL_BREAK_EVENT to the process group; a process without
// a console does not get it, and is killed after the grace period.
func (g procGroup) interrupt() { procGenerateConsoleCtrlEvent.Call(ctrlBreakEvent, uintptr(g.pid)) }

// kill terminates the job, descendants included, or the process alone when
// there is no job.
func (g procGroup) kill() {
	if g.job != 0 {
		procTerminateJobObject.Call(uintptr(g.job), 1)
		return
	}
	if p, err := os.FindProcess(g.pid); err == nil {
		p.Kill()
	}
}

// release closes the job, which kills what is left in it.
func (g procGroup) release() {
	if g.job != 0 {
		syscall.CloseHandle(g.job)
	}
}

// exitSignal is always nil: a Windows process has no exit signal.
func exitSignal(*os.ProcessState) os.Signal { return nil }

func isStopSignal(os.Signal) bool { return false }
