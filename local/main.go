// Command local runs the whole product on one machine: the HTTP edge on
// 127.0.0.1:8000, the conversation workflow executed from its ASL file by an
// in-process interpreter, an embedded store, the mock Java data service and
// the offline stand-in model. No AWS, no network, no key.
//
//	go run ./local                 serve on 127.0.0.1:8000
//	go run ./local chat "…"        run one turn and print it readably
//	go run ./local template-check  seed 002's end-to-end self-check of the template report agent
//	go run ./local eval            run the evaluation suite (docs/eval.md)
//	go run ./local limits …        show or change a teacher's or school's fair-use limits
//	go run ./local -h              usage
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/pprof"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/insightedge/insightedge/local/server"
	"github.com/insightedge/insightedge/local/templatebackend"
	"github.com/insightedge/insightedge/shared/boltstore"
	"github.com/insightedge/insightedge/shared/obs"
)

func main() {
	calm()
	if err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr, os.Getenv); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	cmd := "serve"
	if len(args) > 0 && (args[0] == "serve" || args[0] == "chat" || args[0] == "replay" || args[0] == "template-check" || args[0] == "eval" || args[0] == "limits") {
		cmd, args = args[0], args[1:]
	} else if len(args) > 0 && args[0] == "help" {
		args = []string{"-h"}
	}
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	// Parse reports errors; usage is printed here: on stdout when asked
	// for (-h, exit 0), on stderr after a wrong flag.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	addr := fs.String("addr", envOr(getenv, "ADDR", "127.0.0.1:8000"), "listen address (ADDR); chat: the server to use when one answers there")
	dataDir := fs.String("data", envOr(getenv, "DATA_DIR", ".data"), "directory of the embedded store")
	serverURL := fs.String("server", "", "chat, template-check: use this running server (http://… or ws://…); chat's default: the one at -addr if it answers")
	tplName := fs.String("template", "", "template-check: the template to use (default "+templatebackend.SelfCheckTemplate+")")
	kbName := fs.String("kb", "", "template-check: the knowledge base to use (default "+templatebackend.SelfCheckKB+")")
	teacher := fs.String("teacher", "", "chat: teacher id (development mode)")
	conv := fs.String("conversation", "", "chat: continue this conversation id")
	verbose := fs.Bool("v", false, "debug logs")
	appID := fs.String("app", "", "replay: run this app now (default: every due app)")
	templateWS := fs.String("template-ws-addr", "", "also serve the template report socket (seed 002) on this address, e.g. 127.0.0.1:8081")
	cpuProfile := fs.String("cpuprofile", "", "serve: write a CPU profile of the whole run to this file (go tool pprof)")
	var ev evalOptions
	if cmd == "eval" {
		evalFlags(fs, &ev)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			usage(stdout, fs)
			return nil
		}
		usage(stderr, fs)
		return err
	}
	var unused []string
	fs.Visit(func(f *flag.Flag) {
		if !serves(f.Name, cmd) {
			unused = append(unused, "-"+f.Name)
		}
	})
	if len(unused) > 0 {
		usage(stderr, fs)
		return fmt.Errorf("%s does nothing for %s", strings.Join(unused, ", "), cmd)
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	switch cmd {
	case "template-check":
		logger := obs.NewLogger(io.Discard, level, "local")
		if *verbose {
			logger = obs.NewLogger(stderr, level, "local")
		}
		return templateCheck(ctx, templateCheckOptions{Server: *serverURL, Template: *tplName, KB: *kbName, Teacher: *teacher,
			Out: stdout, Logger: logger, Getenv: getenv})
	case "eval":
		ev.Getenv, ev.Out1, ev.Err = getenv, stdout, stderr
		ev.Logger = obs.NewLogger(io.Discard, level, "local")
		if *verbose {
			ev.Logger = obs.NewLogger(stderr, level, "local")
		}
		_, err := runEval(ctx, ev)
		return err
	case "limits": // issue 26
		return limitsCmd(ctx, limitsOptions{Addr: *addr, DataDir: *dataDir, Args: fs.Args(), Out: stdout, Getenv: getenv})
	case "replay":
		return replay(ctx, replayOptions{DataDir: *dataDir, App: *appID, Out: stdout, Getenv: getenv,
			Logger: obs.NewLogger(stderr, level, "local")})
	case "chat":
		if fs.NArg() == 0 {
			return fmt.Errorf(`usage: go run ./local chat [-server URL] [-conversation ID] "message" ["follow-up" ...]`)
		}
		logger := obs.NewLogger(io.Discard, level, "local")
		if *verbose {
			logger = obs.NewLogger(stderr, level, "local")
		}
		return chat(ctx, chatOptions{Server: *serverURL, Addr: *addr, DataDir: *dataDir, Teacher: *teacher, Conversation: *conv,
			Messages: fs.Args(), Out: stdout, Logger: logger, Getenv: getenv})
	default:
		if *cpuProfile != "" {
			stopProfile, err := startCPUProfile(*cpuProfile)
			if err != nil {
				return err
			}
			defer stopProfile()
		}
		return serve(ctx, server.Options{Addr: *addr, DataDir: *dataDir, Getenv: getenv, TemplateWSAddr: *templateWS,
			Logger: obs.NewLogger(stderr, level, "local")}, stdout)
	}
}

// flagCommands are the commands a flag serves; a flag not listed serves
// every command that defines it. A command's -h lists its own flags only,
// and a flag it would ignore is an error.
var flagCommands = map[string][]string{
	"addr":             {"serve", "chat", "limits"},
	"data":             {"serve", "chat", "replay", "limits"},
	"server":           {"chat", "template-check"},
	"template":         {"template-check"},
	"kb":               {"template-check"},
	"teacher":          {"chat", "template-check"},
	"conversation":     {"chat"},
	"app":              {"replay"},
	"template-ws-addr": {"serve"},
	"cpuprofile":       {"serve"},
}

func serves(flagName, cmd string) bool {
	cmds, listed := flagCommands[flagName]
	return !listed || slices.Contains(cmds, cmd)
}

// usage prints the commands and the flags of fs that its command uses.
func usage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, `Insight Edge on one machine: the whole product, no AWS, no network, no key.

Usage:
  go run ./local [serve] [flags]            serve on ADDR (default 127.0.0.1:8000); the dev console is at /
  go run ./local chat [flags] "…" ["…"]     one turn per message, printed readably: through the server
                                            at ADDR when one answers, else a server started in process
  go run ./local replay [-app ID]           run the saved apps that are due (or one app now)
  go run ./local limits show|set|lift|reset (-teacher ID | -school ID) [limit=value | limit ...]
                                            a teacher's or school's fair-use limits (docs/deploy.md, "Fair use")
  go run ./local template-check [flags]     seed 002's end-to-end self-check of the template report agent
  go run ./local eval [flags]               the evaluation suite (docs/eval.md; go run ./local eval -h)
  go run ./local -h                         this help

Flags of `+fs.Name()+`:
`)
	own := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
	fs.VisitAll(func(f *flag.Flag) {
		if serves(f.Name, fs.Name()) {
			own.Var(f.Value, f.Name, f.Usage)
		}
	})
	own.SetOutput(w)
	own.PrintDefaults()
	fmt.Fprint(w, `
Settings come from the environment (ADDR, DATA_DIR, OPENAI_BASE_URL, …): README.md, "Configuration".
`)
}

func serve(ctx context.Context, o server.Options, stdout io.Writer) error {
	s, err := server.Start(ctx, o)
	if errors.Is(err, boltstore.ErrInUse) {
		return fmt.Errorf("the data directory %s is in use by another process: stop the other `go run ./local` "+
			"(or whatever holds it), or give this one its own with -data DIR", o.DataDir)
	}
	if err != nil {
		return err
	}
	model := "the offline stand-in model (deterministic scenarios; set OPENAI_BASE_URL for a real one)"
	if s.Offline == nil {
		model = "the model at " + o.Getenv("OPENAI_BASE_URL")
	}
	fmt.Fprintf(stdout, `Insight Edge is running on %s with %s.
Try:
  curl -N -X POST %s/api/conversation/stream -d '{"message":"出 5 道牛顿第一定律的选择题"}'
  curl -X POST %s/api/conversation -d '{"message":"which students in 1A are weakest in grammar?"}'
  go run ./local chat "What is photosynthesis?"
  open %s/ for the dev console
`, s.URL, model, s.URL, s.URL, s.URL)
	<-ctx.Done()
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return s.Close(sctx)
}

// startCPUProfile profiles the process until the returned function is
// called (the load benchmark's -profile uses it: docs/benchmarks.md).
func startCPUProfile(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("-cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("-cpuprofile: %w", err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

func envOr(getenv func(string) string, k, def string) string {
	if v := getenv(k); v != "" {
		return v
	}
	return def
}
