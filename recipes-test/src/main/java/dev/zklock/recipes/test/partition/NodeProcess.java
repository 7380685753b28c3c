package dev.zklock.recipes.test.partition;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;

/**
 * A process the rig started inside a node's namespace (a server, client or observer JVM): its pid, its log, a way to
 * wait for it, pause it (SIGSTOP/SIGCONT), write a line to its standard input, and end it. Safe for use by multiple
 * threads.
 */
public final class NodeProcess {
    private final String node;
    private final Process process;
    private final Path log;
    private boolean paused; // guarded by this

    NodeProcess(String node, Process process, Path log) {
        this.node = node;
        this.process = process;
        this.log = log;
    }

    /** Returns the node it runs on ({@code s1}, {@code c2}, {@code obs}). */
    public String node() {
        return node;
    }

    /** Returns its pid (the JVM's own: {@code ip netns exec} becomes the command it runs). */
    public long pid() {
        return process.pid();
    }

    /** Returns the file that holds what it printed, stdout and stderr together. */
    public Path log() {
        return log;
    }

    /** Returns whether it still runs (a paused process runs). */
    public boolean isAlive() {
        return process.isAlive();
    }

    /** Returns its exit status if it ends within {@code atMost}, empty otherwise. */
    public OptionalInt waitFor(Duration atMost) throws InterruptedException {
        return process.waitFor(atMost.toNanos(), TimeUnit.NANOSECONDS)
                ? OptionalInt.of(process.exitValue())
                : OptionalInt.empty();
    }

    /** Writes {@code line} and a newline to its standard input, if that is a pipe (the observer's is). */
    public void send(String line) throws IOException {
        OutputStream in = process.getOutputStream();
        synchronized (this) {
            in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            in.flush();
        }
    }

    /** Stops it with SIGSTOP: it keeps its sockets but answers nothing. */
    public synchronized void pause() {
        Commands.run(List.of("kill", "-STOP", Long.toString(pid())));
        paused = true;
        // kill returns once the signal is sent; the process stops when its threads take it (milliseconds later on a
        // busy machine: NemesisIT read it still running once). Paused means stopped.
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(this::isStopped);
    }

    /** Lets a paused process go on with SIGCONT; does nothing if it was not paused by {@link #pause}. */
    public synchronized void resume() {
        if (paused) {
            Commands.attempt(List.of("kill", "-CONT", Long.toString(pid())));
            paused = false;
        }
    }

    /** Returns whether the kernel shows it stopped (state {@code T} in {@code /proc/<pid>/stat}). */
    public boolean isStopped() {
        return ProcStat.state(pid()) == 'T';
    }

    /** Kills it with SIGKILL (after SIGCONT, if paused) and waits for it to end; safe to call again. */
    public void kill() throws InterruptedException {
        resume();
        process.destroyForcibly();
        process.waitFor();
    }

    @Override
    public String toString() {
        return node + " pid " + pid();
    }
}
