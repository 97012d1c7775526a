# SPDX-License-Identifier: GPL-3.0-or-later
"""``batch``: report, bake or export-check over many shots, and ``batch summarize``.

One Blender process per shot (this Python with the bpy module, or a Blender program),
``--jobs`` of them at a time; each writes its outputs and its record
(``shot.run_shot``), and this process, which never loads Blender itself, merges the
records into ``DIR/summary.json`` and ``DIR/summary.html`` (``report.batch_report``).
A shot that is missing, corrupt or truncated, or whose Blender crashes, is recorded
with exit code 3 and the others carry on; no shot is retried (a farm does that).

Output names: a shot's outputs are named after its file's stem (``sh010.blend`` ->
``sh010.json``, ``sh010.html``, ``sh010.blend``). When two shots of the list share a
stem (``seq/sh010/anim.blend``, ``seq/sh020/anim.blend``), or a stem is ``summary``,
each of those takes as many parent folders as it needs to be unique, joined with
``__`` (``sh010__anim``, ``sh020__anim``); names are compared ignoring case, as on
Windows and macOS disks. The names depend on the whole list, so a farm task
(``--index N``) names its shot as the whole batch would.
"""
from __future__ import annotations

import contextlib
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed

from ...core.words import counted
from ...report import batch_report, files
from .args import EXIT_BAD_INPUT, EXIT_OK, EXIT_SHOT_FAILED
from .headless import BadInput

ROOT = pathlib.Path(__file__).resolve().parents[2]
MAIN = ROOT / "__main__.py"
RESERVED = {"summary"}        # DIR/summary.json and summary.html are the batch's own
SEPARATOR = "__"


# --------------------------------------------------------------------------
# The list of shots and their output names
# --------------------------------------------------------------------------

def read_manifest(path: str) -> list[str]:
    """The shots a manifest lists, absolute: one path per line, relative to its folder;
    blank lines and lines starting with # skipped."""
    try:
        with open(path, encoding="utf-8-sig") as fh:
            lines = fh.read().splitlines()
    except FileNotFoundError:
        raise BadInput(f"--manifest {path} does not exist.") from None
    except IsADirectoryError:
        raise BadInput(f"--manifest {path} is a folder, not a text file.") from None
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or "it is not UTF-8 text"
        raise BadInput(f"--manifest {path} cannot be read ({reason}).") from None
    folder = os.path.dirname(os.path.abspath(path))
    shots = []
    for line in lines:
        line = line.strip()
        if line and not line.startswith("#"):
            shots.append(os.path.normpath(os.path.join(folder, line)))
    if not shots:
        raise BadInput(f"--manifest {path} lists no shots: write one .blend path per line.")
    return shots


def shot_list(shots: list[str], manifest: str | None) -> list[str]:
    """Absolute paths of the SHOT.blend arguments, then the manifest's; each file once."""
    found = [os.path.abspath(s) for s in shots] + (read_manifest(manifest) if manifest else [])
    if not found:
        raise BadInput("batch needs shots: give .blend files, or --manifest LIST.txt with one "
                       "path per line.")
    seen = {}
    for i, path in enumerate(found):
        key = os.path.normcase(os.path.realpath(path))
        if key in seen:
            raise BadInput(f"{path} is listed twice (shots {seen[key]} and {i}, 0-based); list "
                           "each shot once.")
        seen[key] = i
    return found


def output_names(paths: list[str]) -> list[str]:
    """Each shot's output name: its stem, with parent folders where stems collide (see
    the module's docstring). Unique ignoring case, never ``summary``, never hidden (no
    leading dot)."""
    parts = []
    for p in paths:
        pure = pathlib.PurePath(p)
        folders = [f for f in pure.parent.parts if f not in (pure.anchor, "")]
        parts.append((folders, pure.stem or pure.name))
    depth = [0] * len(paths)

    def name(i):
        folders, stem = parts[i]
        # Never a leading dot: summarize passes over hidden files (a share's "._x.json"),
        # and a pipeline walk saw .sh010.blend done by batch and missing in the summary.
        return SEPARATOR.join(folders[len(folders) - depth[i]:] + [stem]).lstrip(".") or "shot"

    names = [name(i) for i in range(len(paths))]
    while True:
        groups = {}
        for i, n in enumerate(names):
            groups.setdefault(n.casefold(), []).append(i)
        clashing = [g for key, g in groups.items() if len(g) > 1 or key in RESERVED]
        if not clashing:
            return names
        for group in clashing:
            deeper = [i for i in group if depth[i] < len(parts[i][0])]
            if len(group) > 1 and len({tuple(f.casefold() for f in parts[i][0])
                                       for i in group}) == 1:
                # The same folders all the way up (walk.blend, Walk.blend side by side): no
                # folder tells them apart, so none is added (a pipeline walk: the names took
                # the whole absolute path, which differs from worker to worker).
                deeper = []
            if deeper:
                for i in deeper:
                    depth[i] += 1
                    names[i] = name(i)
            else:
                # Same folders all the way up (only case differs): the list position decides.
                for i in group:
                    names[i] = f"{names[i]}-{i}"


def prepare_out(out: str) -> str:
    """DIR (absolute), made with its ``shots`` folder when missing; BadInput if it cannot be.
    A problem with DIR/shots alone is said of that folder (a TD walk read "--out DIR cannot
    be written" of a folder it could write, whose shots folder another user's run had
    left read-only)."""
    full = os.path.abspath(out)
    if os.path.exists(full) and not os.path.isdir(full):
        raise BadInput(f"--out {out} is a file, not a folder.")
    shots, shots_full = os.path.join(out, "shots"), os.path.join(full, "shots")
    where = f"{shots} (inside --out, for the shots' records)"
    if os.path.isdir(full) and os.path.lexists(shots_full) and not os.path.isdir(shots_full):
        # (lexists: a link to nowhere is in the way too; a review.)
        raise BadInput(f"{where} is a file or a broken link, not a folder; move it, or give "
                       "another --out.")
    try:
        os.makedirs(shots_full, exist_ok=True)
    except OSError as exc:
        what = "cannot be written" if os.path.isdir(full) else "cannot be created"
        raise BadInput(f"--out {out} {what} ({exc.strerror}).") from None
    if not os.access(full, os.W_OK):
        raise BadInput(f"--out {out} cannot be written: permission denied.")
    if not os.access(shots_full, os.W_OK):
        raise BadInput(f"{where} cannot be written: permission denied; make it writable, "
                       "or give another --out.")
    return full


def _same(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


# --------------------------------------------------------------------------
# Running shots: one process each
# --------------------------------------------------------------------------

def _is_python(program: str) -> bool:
    base = os.path.basename(program).lower()
    return base.startswith("python")


def check_blender(blender: str | None) -> None:
    """BadInput when ``--blender`` names no program that can run (a pipeline walk: a wrong
    path ended in a traceback and exit 4, "a bug", after making the output folder)."""
    if blender is None:
        return
    found = shutil.which(blender)
    if found is None or os.path.isdir(found):
        why = ("is a folder" if os.path.isdir(blender) else
               "is not executable" if os.path.exists(blender) else "does not exist")
        raise BadInput(f"--blender {blender} {why}; give a Blender program (or a Python with "
                       "the bpy module) that runs the shots.")


def child_prefix(blender: str | None) -> list[str]:
    """The command line that runs ``python -m quatbake`` in a fresh Blender process."""
    if blender is None:
        bpy = sys.modules.get("bpy")
        binary = getattr(getattr(bpy, "app", None), "binary_path", "") if bpy else ""
        if binary:                 # batch itself runs inside a Blender program
            blender = binary
        else:
            main = sys.modules.get("__main__")
            if getattr(main, "__package__", None) or not getattr(main, "__file__", None) or \
                    not _same(main.__file__, str(MAIN)):
                return [sys.executable, "-m", "quatbake"]
            # Run as a script (python path/to/quatbake/__main__.py): quatbake may not be
            # installed in this Python, so the shots run the same script.
            return [sys.executable, str(MAIN)]
    if _is_python(blender):
        return [blender, str(MAIN)]
    # --factory-startup: the user's add-ons and startup file stay out of the shot's
    # process; --python-exit-code: an uncaught error is not exit 0.
    return [blender, "-b", "--factory-startup", "--python-exit-code", "1", "--python",
            str(MAIN), "--"]


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _tail(text: str) -> str:
    """The last line of a process's output worth quoting (Blender's own sign-off left out)."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    lines = [ln for ln in lines if not ln.startswith(("Blender quit", "Saved session recovery"))]
    return lines[-1][:300] if lines else ""


class Runner:
    """Runs shots in child processes and keeps count; safe to call from pool threads."""

    def __init__(self, args, shots: list[str], names: list[str], out_dir: str):
        self.args = args
        self.shots, self.names, self.out = shots, names, out_dir
        self.command = args.batch_command
        self.options = {d: getattr(args, d) for d in args.command_options}
        self.prefix = child_prefix(args.blender)
        self.lock = threading.Lock()
        self.running: set = set()
        self.stopping = False
        self.probe_lock = threading.Lock()
        self.probed = args.blender is None      # our own Python or Blender: it runs
        self.unrecorded: list[str] = []          # not_cleared's records that no file holds

    def _cannot_run(self, exc: OSError) -> BadInput:
        return BadInput(f"--blender {self.prefix[0]} cannot be run "
                        f"({exc.strerror or type(exc).__name__}); give a Blender program (or a "
                        "Python with the bpy module) for this system that runs the shots.")

    def check_runs(self) -> None:
        """BadInput when ``--blender`` cannot be executed, found by running it once with
        --version, before the first shot whose earlier outputs would be removed: a run over
        an earlier one's --out removed those shots' outputs and records, then stopped on exit
        2 ("bad usage") with the earlier summary still naming them. Only where something
        would be lost, so a fresh --out (a farm's first try) pays no extra Blender start."""
        with self.probe_lock:
            if self.probed:
                return
            try:
                subprocess.run([self.prefix[0], "--version"], stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
            except OSError as exc:
                raise self._cannot_run(exc) from None
            except subprocess.TimeoutExpired:
                pass                              # it runs; what it does is the shots' to say
            self.probed = True

    def _left_over(self, i: int) -> bool:
        from .shot import output_paths, partial_path, record_path

        name = self.names[i]
        return any(os.path.lexists(path) for path in [
            record_path(self.out, name), partial_path(self.out, name),
            *output_paths(self.command, self.out, name).values()])

    # -- one shot ------------------------------------------------------------
    def clear(self, i: int) -> str | None:
        """Remove what an earlier run left of shot ``i``, so a shot that fails now shows no
        outputs of the last time (a retried farm task starts clean too). None, or the
        sentence naming an earlier output that cannot be removed, and why: a TD walk saw
        one such file (a read-only report under a sticky shared folder, owned by the
        farm user of the first try) stop the whole batch on a traceback, exit 4, no
        summary, where only that shot is concerned."""
        from .shot import output_paths, partial_path, record_path

        name = self.names[i]
        for path in [record_path(self.out, name), partial_path(self.out, name),
                     *output_paths(self.command, self.out, name).values()]:
            try:
                os.unlink(path)
            except FileNotFoundError:
                pass
            except OSError as exc:
                return (f"{self.shots[i]} was not run: {path}, left by an earlier run, cannot "
                        f"be removed ({exc.strerror or type(exc).__name__}); remove it, or "
                        "give another --out.")
        return None

    def not_cleared(self, i: int, why: str) -> dict:
        """The record of shot ``i`` that ``clear`` could not clear: failed (exit 3) with
        ``why``, not run. Written to DIR/shots where it can be; the summary lists it
        anyway. Where it cannot be, the sentence saying so goes to ``unrecorded``: the
        earlier run's record may still be there, and a later ``summarize`` would read it
        as this run's (a farm task, ``--index``, exited 0 over such a record)."""
        from .shot import new_record, record_path

        record = new_record(self.command, self.shots[i], self.names[i], i, self.options,
                            self.args.fail_above)
        record.update(message=why, seconds=0.0)
        path = record_path(self.out, self.names[i])
        try:
            files.write_text(batch_report.dumps(record), path)
        except OSError as exc:
            with self.lock:
                self.unrecorded.append(
                    f"{why} Its record {path} cannot be written either "
                    f"({exc.strerror or type(exc).__name__}), so a later summarize would "
                    "not count this run's result, or count an earlier run's in its place.")
        return record

    def spec(self, i: int) -> str:
        return json.dumps({"index": i, "name": self.names[i], "options": self.options,
                           "fail_above": self.args.fail_above})

    def run_in_process(self, i: int) -> dict:
        from .shot import run_shot

        why = self.clear(i)
        if why is not None:
            return self.not_cleared(i, why)
        with _lines_led_by(self.shots[i]):
            return run_shot(self.command, self.shots[i], self.out, self.names[i], i,
                            self.options, self.args.fail_above)

    def run_child(self, i: int) -> dict:
        from .shot import new_record, record_path

        if not self.probed and self._left_over(i):
            self.check_runs()
        why = self.clear(i)
        if why is not None:
            return self.not_cleared(i, why)
        cmd = [*self.prefix, "batch", self.command, self.shots[i], "--out", self.out,
               "--jobs", "0", "--quiet", "--worker", self.spec(i)]
        start = time.monotonic()
        with tempfile.TemporaryFile() as log:
            with self.lock:
                if self.stopping:
                    raise KeyboardInterrupt
                try:
                    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log,
                                            stderr=subprocess.STDOUT)
                except OSError as exc:
                    # A file that passes check_blender (executable) but cannot be run: a
                    # Blender for another system on a shared path, a script with no "#!"
                    # line. A TD walk: a traceback and exit 4, "a bug". No shot can run.
                    raise self._cannot_run(exc) from None
                self.running.add(proc)
            try:
                code = proc.wait()
            finally:
                with self.lock:
                    self.running.discard(proc)
            log.seek(0)
            output = log.read().decode("utf-8", "replace")
        seconds = round(time.monotonic() - start, 3)
        path = record_path(self.out, self.names[i])
        try:
            with open(path, encoding="utf-8") as fh:
                record = json.load(fh)
        except (OSError, ValueError):
            record = None
        interrupted = self.stopping or code in (130, -signal.SIGINT)
        if (record is None or record.get("name") != self.names[i]) and interrupted:
            # Ended by the user's Ctrl+C (stop, or the terminal's SIGINT to every process
            # of the group): not done, and no crash either. A docs walk: recorded
            # "crashed", a later summarize failed the batch with exit 3 for it.
            self.clear(i)
            raise KeyboardInterrupt
        if record is None or record.get("name") != self.names[i]:
            # The process ended without recording its shot: it crashed or was killed. What
            # it wrote before is no result (a walk: a shot killed while saving left its
            # baked .blend, complete, beside a record of no outputs, for the next step of
            # the pipeline to publish): removed.
            self.clear(i)
            record = new_record(self.command, self.shots[i], self.names[i], i, self.options,
                                self.args.fail_above)
            if code < 0:
                why = f"its Blender stopped on {_signal_name(-code)} (crashed or was killed)"
            else:
                why = f"its Blender exited with code {code} without recording a result"
            last = _tail(output)
            record.update(status="crashed", exit_code=EXIT_SHOT_FAILED,
                          message=f"{self.shots[i]}: {why}" + (f"; last output: {last}" if last
                                                                else "") + ".")
        record["seconds"] = seconds
        files.write_text(batch_report.dumps(record), path)
        return record

    def stop(self) -> None:
        """Ctrl+C: start no more shots and end the running ones."""
        with self.lock:
            self.stopping = True
            for proc in self.running:
                proc.terminate()

    # -- what the user sees ----------------------------------------------------
    def finished(self, record: dict, position: int) -> None:
        """One line per finished shot, named by its place in the manifest (a pipeline walk:
        numbered in the order they finished, the first shot printed as "shot 2/9")."""
        with self.lock:
            if self.args.quiet:
                return
            print(f"shot {position}/{len(self.shots)} {record['name']}: {describe(record)}",
                  file=sys.stderr, flush=True)
            for output in record.get("outputs", {}).values():
                print(f"Saved: '{os.path.join(self.out, output)}'", flush=True)


class _LedByFile:
    """A stream whose every line is led by ``shot``'s file (unless it leads with it
    already): what a shot's command prints itself while it runs in the batch's process."""

    def __init__(self, stream, shot: str) -> None:
        self.stream, self.shot, self.partial = stream, shot, ""

    def _led(self, line: str) -> str:
        return line if not line.strip() or line.startswith(self.shot) else f"{self.shot}: {line}"

    def write(self, text: str) -> int:
        *lines, self.partial = (self.partial + text).split("\n")
        for line in lines:
            self.stream.write(self._led(line) + "\n")
        return len(text)

    def flush(self) -> None:
        self.stream.flush()

    def end(self) -> None:
        """Write what is left of an unfinished line."""
        if self.partial:
            self.stream.write(self._led(self.partial) + "\n")
            self.partial = ""
        self.stream.flush()

    def __getattr__(self, name):
        return getattr(self.stream, name)


@contextlib.contextmanager
def _lines_led_by(shot: str):
    """stderr led by ``shot``'s file while it runs here (--jobs 0). Its command prints the
    sentences --quiet never silences (a NaN key's, a bake's "Not baked ...") and a
    traceback there: in a process of its own (--jobs 1 and more) they stay in its log and
    the progress line names the file, but here they were printed bare, and among forty
    shots nothing said which file held the broken key."""
    led = _LedByFile(sys.stderr, shot)
    sys.stderr = led
    try:
        yield
    finally:
        sys.stderr = led.stream
        led.end()


def describe(record: dict) -> str:
    """One line about a finished shot, for the progress line."""
    status = record["status"]
    seconds = f" ({record['seconds']:.1f} s)" if record.get("seconds") is not None else ""
    if status in batch_report.FAILED:
        return f"{status}, exit {record['exit_code']}: {record['message']}{seconds}"
    worst = record.get("max_deviation_deg")
    text = "done" if worst is None else f"worst {worst:.2f} deg" if worst >= 0.01 else \
        f"worst {worst:.2g} deg"
    if status == "over":
        text += f", over --fail-above {record['fail_above_deg']:g}"
    return text + seconds


# --------------------------------------------------------------------------
# The commands
# --------------------------------------------------------------------------

def run_batch(args) -> int:
    if args.batch_command == "summarize":
        return run_summarize(args)
    if args.worker is not None and json.loads(args.worker).get("exporter_options_only"):
        return _exporter_options_only(args)
    if args.batch_command == "bake":
        from .bake import check_options

        check_options(args)
    shots = shot_list(args.shots, args.manifest)
    if args.index is not None and args.index >= len(shots):
        raise BadInput(f"--index {args.index} is past the last shot: the list has {len(shots)} "
                       f"(0 to {len(shots) - 1}).")
    names = output_names(shots)
    check_blender(args.blender)
    if args.worker is None:
        check_exporter_options(args)
    if args.worker is None:
        _check_inputs_kept(args.batch_command, shots, names, os.path.abspath(args.out))
        chosen_names = names if args.index is None else [names[args.index]]
        _check_no_folders(args.batch_command, chosen_names, os.path.abspath(args.out))
    out = prepare_out(args.out)
    if args.worker is not None:
        return run_worker(args, shots, out)
    runner = Runner(args, shots, names, out)
    chosen = list(range(len(shots))) if args.index is None else [args.index]
    jobs = args.jobs if args.jobs is not None else (os.cpu_count() or 1)
    records = {}
    if jobs == 0:
        for i in chosen:
            records[i] = runner.run_in_process(i)
            runner.finished(records[i], i + 1)
    else:
        pool = ThreadPoolExecutor(max_workers=min(jobs, len(chosen)))
        # SIGTERM stops the shots as Ctrl+C does (a pipeline walk: `timeout`, or a farm
        # cancelling the batch's process alone, left its shots running, writing outputs
        # after the batch had gone). Only the main thread may set a handler.
        main = threading.current_thread() is threading.main_thread()
        previous = signal.signal(signal.SIGTERM, _terminate) if main else None
        try:
            futures = {pool.submit(runner.run_child, i): i for i in chosen}
            for future in as_completed(futures):
                i = futures[future]
                records[i] = future.result()
                runner.finished(records[i], i + 1)
        except (KeyboardInterrupt, BadInput):
            runner.stop()
            pool.shutdown(wait=True, cancel_futures=True)
            raise
        finally:
            if main:
                signal.signal(signal.SIGTERM, previous)
        pool.shutdown()
    done = [records[i] for i in chosen]
    if args.index is not None and runner.unrecorded:
        # A farm task's result is its record: with none written, `summarize` would
        # count what an earlier run left. Bad usage of this --out: fix the folder.
        raise BadInput(runner.unrecorded[0])
    for sentence in runner.unrecorded:
        # The whole batch's summary has the shot, failed; a later summarize of DIR would
        # not (a review). Said whatever --quiet, as every error about a shot is.
        print(sentence, file=sys.stderr)
    if args.index is None:
        summary = batch_report.build_summary(done, command=args.batch_command,
                                             options=runner.options, fail_above=args.fail_above)
        write_summary(summary, out, args.quiet)
        code = summary["exit_code"]
    else:
        code = batch_report.exit_code(done)
    if args.defer_exit:
        # A farm task: findings and unreadable shots are in the record for the summary;
        # only a crash, which a retry on another worker may cure, fails the task.
        return EXIT_SHOT_FAILED if any(r["status"] == "crashed" for r in done) else EXIT_OK
    return code


def _terminate(_signum, _frame) -> None:
    from .headless import Terminated

    raise Terminated


def check_exporter_options(args) -> None:
    """BadInput when an ``--exporter-option`` of ``batch export-check`` is not one Blender's
    glTF exporter takes. Only a Blender process knows its exporter's options, and this one
    never loads Blender: they are checked once, in a Blender process of their own (as the
    shots run), before any shot or output, so a typo fails the batch with exit 2 and the
    sentence, not every shot with exit 3 (a pipeline walk). Costs one Blender start, only
    when options are given. Any other outcome of that process leaves the options to the
    shots, which record what went wrong as they always do."""
    if args.batch_command != "export-check" or not args.exporter_option:
        return
    cmd = [*child_prefix(args.blender), "batch", "export-check", "--out", args.out,
           "--worker", json.dumps({"exporter_options_only": True})]
    for option in args.exporter_option:
        cmd += ["--exporter-option", option]
    done = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          errors="replace")
    if done.returncode == EXIT_BAD_INPUT:
        raise BadInput(_tail(done.stderr) or "--exporter-option: Blender's glTF exporter "
                       "does not take these options.")


def _exporter_options_only(args) -> int:
    """The Blender process of check_exporter_options: exit 2 with the sentence when an
    option is not the exporter's, else 0."""
    from .scenes import import_bpy

    import_bpy()
    from .. import export_check

    try:
        export_check.parse_exporter_options(args.exporter_option)
    except export_check.ExportCheckError as exc:
        raise BadInput(str(exc)) from None
    return EXIT_OK


def _check_inputs_kept(command: str, shots: list[str], names: list[str], out: str) -> None:
    """BadInput when an output would land on a shot (say --out is the shots' folder and
    bake would write sh010.blend over sh010.blend): inputs are never modified."""
    from .shot import output_paths, record_path

    inputs = {}
    for path in shots:
        if os.path.exists(path):
            inputs[os.path.normcase(os.path.realpath(path))] = path
    for name in names:
        for target in [record_path(out, name), *output_paths(command, out, name).values()]:
            hit = inputs.get(os.path.normcase(os.path.realpath(target)))
            if hit is not None:
                raise BadInput(f"--out {out} would replace the shot {hit} with an output; "
                               "choose another output folder (inputs are never modified).")


def _check_no_folders(command: str, names: list[str], out: str) -> None:
    """BadInput, before any shot runs, where a folder sits on a path a shot's output or
    record is written to: a pipeline walk saw the batch stop mid-way on a traceback (exit
    4, no summary) when out/flip.json was a folder."""
    from .shot import output_paths, record_path

    for name in names:
        for target in [record_path(out, name), *output_paths(command, out, name).values()]:
            if os.path.isdir(target):
                raise BadInput(f"{target} is a folder, where shot \"{name}\" writes a file: "
                               "move or rename it; nothing was run.")


def run_worker(args, shots: list[str], out: str) -> int:
    """The child of one shot (``--worker SPEC``, made by Runner.run_child)."""
    from .shot import run_shot

    spec = json.loads(args.worker)
    if len(shots) != 1:
        raise BadInput("--worker takes exactly one shot.")
    record = run_shot(args.batch_command, shots[0], out, spec["name"], spec["index"],
                      spec["options"], spec["fail_above"])
    return record["exit_code"]


def write_summary(summary: dict, out: str, quiet: bool) -> None:
    for name, text in (("summary.json", batch_report.dumps(summary)),
                       ("summary.html", batch_report.summary_html(summary))):
        path = os.path.join(out, name)
        try:
            files.write_text(text, path)
        except OSError as exc:
            raise BadInput(f"{path} cannot be written ({exc.strerror}).") from None
        if not quiet:
            print(f"Saved: '{path}'", flush=True)
    if summary["exit_code"]:
        # Never silenced, as a single command's --fail-above sentence (a pipeline walk: a
        # quiet batch exited 3 with nothing on stderr).
        print(_verdict(summary, os.path.join(out, "summary.json")), file=sys.stderr, flush=True)


def _verdict(summary: dict, path: str) -> str:
    """One sentence on why the batch does not pass: how many shots of each bad status,
    the first few named."""
    parts = []
    for status, words in (("over", "over --fail-above"), ("failed", "failed"),
                          ("crashed", "crashed"), ("missing", "missing")):
        names = [s["name"] for s in summary["shots"] if s["status"] == status]
        if names:
            shown = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
            parts.append(f"{len(names)} {words} ({shown})")
    total = len(summary["shots"])
    return f"batch: {'; '.join(parts)} of {counted(total, 'shot')}; see {path}."


def _drop_older_results(found: dict, written: dict) -> None:
    """Keep one record per shot file in ``found`` (by name), the last written: a batch run
    again with more shots names a shot anew where stems collide (anim -> sh010__anim),
    and the first run's record stayed beside it (a pipeline walk: one shot counted twice).
    Each record left out is said."""
    by_file: dict = {}
    for name, record in found.items():
        by_file.setdefault(os.path.abspath(str(record.get("file", name))), []).append(name)
    for names in by_file.values():
        names.sort(key=lambda n: written[n][0])
        for name in names[:-1]:
            print(f"note: shots/{written[name][1]} is an older result of the same shot as "
                  f"shots/{written[names[-1]][1]} (an earlier batch); left out.",
                  file=sys.stderr)
            del found[name]


def shot_range(text: str, count: int) -> list[int]:
    """The 0-based shot indices of a range as a farm job gives them (Open Job
    Description's: "0-39", "0-39:2", "3,7", "5"), each in 0 .. count - 1, sorted and once
    each; BadInput saying what is wrong otherwise. A pipeline walk: a job running every
    other shot (0-39:2) always failed its summary, which expected all forty."""
    picked = set()
    for part in re.sub(r"\s", "", text).split(","):
        match = re.fullmatch(r"(\d+)(?:-(\d+)(?::(\d+))?)?", part)
        if not match:
            raise BadInput(f"--shots {text}: {part or 'an empty part'} is not a shot number "
                           "or range (write 0-39, 0-39:2 or 3,7).")
        first = int(match[1])
        last = int(match[2]) if match[2] is not None else first
        step = int(match[3]) if match[3] is not None else 1
        if last < first or step < 1:
            raise BadInput(f"--shots {text}: {part} runs backwards or by a step below 1.")
        if last >= count:
            raise BadInput(f"--shots {text}: shot {last} is past the manifest's last shot "
                           f"(it lists {count}: 0 to {count - 1}).")
        picked.update(range(first, last + 1, step))
    return sorted(picked)


def run_summarize(args) -> int:
    """Merge DIR/shots/*.json into DIR/summary.json and summary.html."""
    from .shot import new_record

    out = os.path.abspath(args.out)
    folder = os.path.join(out, "shots")
    if not os.path.isdir(out):
        raise BadInput(f"{args.out} is not a folder: give the --out DIR of the batch.")
    found, broken, written = {}, {}, {}
    for entry in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
        if not entry.endswith(".json") or entry.startswith("."):
            continue
        # A shot's record that cannot be read is a shot not accounted for, said and failed
        # (a pipeline walk: a truncated record vanished from the summary, exit 0, and one
        # without a field was a traceback, exit 4). Our writes are atomic; a copy is not.
        stem = entry[:-len(".json")]
        try:
            with open(os.path.join(folder, entry), encoding="utf-8") as fh:
                record = json.load(fh)
        except (OSError, ValueError) as exc:
            broken[stem] = f"its record shots/{entry} cannot be read ({exc})."
            continue
        if not isinstance(record, dict) or record.get("schema") != batch_report.SHOT_SCHEMA:
            continue       # not a shot record: some other file someone put there
        lacking = sorted({"command", "status"} - set(record))
        if lacking:
            broken[stem] = f"its record shots/{entry} lacks {', '.join(lacking)}."
            continue
        # The other fields as a shot's record starts (a record of an older QuatBake may
        # lack the newer ones, such as peak_memory_mb).
        record = {**new_record(record["command"], record.get("file", stem),
                               record.get("name", stem), record.get("index", len(found)),
                               record.get("options", {}), None), **record}
        found[record["name"]] = record
        written[record["name"]] = (os.path.getmtime(os.path.join(folder, entry)), entry)
    if not found:
        raise BadInput(f"{args.out} has no shot results ({folder}/*.json): run batch with "
                       f"--out {args.out} first.")
    commands = sorted({r["command"] for r in found.values()})
    if len(commands) > 1:
        raise BadInput(f"{args.out} holds results of {' and '.join(commands)}; give each "
                       "command its own output folder.")
    command, options = commands[0], next(iter(found.values()))["options"]
    for stem, why in broken.items():
        print(f"note: {stem}: {why}", file=sys.stderr)
    if not args.manifest:
        # A manifest names each shot's record itself (output_names of its list).
        _drop_older_results(found, written)
    if args.shots and not args.manifest:
        raise BadInput("--shots picks shots of the --manifest: give both.")
    if args.manifest:
        shots = shot_list([], args.manifest)
        names = output_names(shots)
        chosen = (shot_range(args.shots, len(shots)) if args.shots
                  else range(len(shots)))
        records = []
        for i in chosen:
            shot, name = shots[i], names[i]
            record = found.get(name)
            if record is None:
                record = new_record(command, shot, name, i, options, None)
                record.update(status="missing", exit_code=EXIT_SHOT_FAILED,
                              message=f"{shot}: no result in {folder} (its task did not run "
                                      "or did not finish).")
                if name in broken:
                    record.update(status="failed", message=f"{shot}: {broken[name]}")
            records.append(dict(record, index=i))
    else:
        records = sorted(found.values(), key=lambda r: (r["index"], r["name"]))
        last = max(r["index"] for r in records)
        for k, (stem, why) in enumerate(sorted(broken.items())):
            record = new_record(command, stem, stem, last + 1 + k, options, None)
            record.update(message=f"{stem}: {why}")
            records.append(record)
    if args.fail_above is not None:
        fail_above = args.fail_above
        records = [batch_report.judged(r, fail_above) for r in records]
    else:
        # The --fail-above the shots ran with; each its own, should they differ.
        gates = {r["fail_above_deg"] for r in records if r["status"] != "missing"}
        fail_above = gates.pop() if len(gates) == 1 else None
        records = [batch_report.judged(r, r["fail_above_deg"] if r["status"] != "missing"
                                       else fail_above) for r in records]
    summary = batch_report.build_summary(records, command=command, options=options,
                                         fail_above=fail_above)
    write_summary(summary, out, args.quiet)
    return summary["exit_code"]
