package dev.zklock.cli.inspect;

import dev.zklock.cli.Clients;
import dev.zklock.cli.CommandFailure;
import dev.zklock.cli.ConnectString;
import dev.zklock.cli.Json;
import dev.zklock.recipes.leader.ZkLeaderObserver;
import java.io.PrintWriter;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.LinkedBlockingQueue;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.common.PathUtils;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * Shows a live lock's holders and queue in order, for zklock's locks and Curator's alike: each node's kind, whether it
 * holds or waits, its session, age and data. With {@code --watch} it draws the queue again each time it changes, woken
 * by a child watch on the lock path (no polling). Costs one listing and one data read per lock node for each drawing.
 * For a leader election (a latch's path, or any path with {@code --leader}) it also shows who leads and the epoch of
 * the term, as {@link ZkLeaderObserver#leaderOf} reads them: two more reads; with {@code --json}, as its {@code leader}
 * field ({@code null} while nobody leads).
 *
 * <p>Not thread-safe: picocli fills its options and calls it once, on one thread.
 */
@Command(
        name = "inspect",
        mixinStandardHelpOptions = true,
        description = "Shows a lock's holders and queue in order: kind, holder or waiting, session, age, data.",
        footer = {
            "",
            "Works on locks made by zklock and by Curator's InterProcessMutex and InterProcessReadWriteLock, and on",
            "semaphores (ZkSemaphore, InterProcessSemaphoreV2, and both libraries' semaphore mutexes): their leases",
            "and the queue of their internal mutex.",
            "A leader latch's path (zklock's or Curator's) also shows the leader and the epoch of its term",
            "(in --json, the field leader: participant and epoch, null while nobody leads);",
            "--leader shows them for a selector's path, whose nodes are a mutex's.",
            "An existing path without lock nodes is a free lock; a missing path, or one whose children are",
            "not lock nodes, is an error (status 1)."
        })
public final class InspectCommand implements Callable<Integer> {
    private static final int SESSION_TIMEOUT_MS = 30_000;
    private static final String CLEAR_SCREEN = "\033[H\033[2J";
    private static final String LATCH_LOCK_NAME = "latch-"; // Curator's LeaderLatch names its nodes so, as zklock's

    @Spec
    CommandSpec spec;

    @Option(names = "--connect", required = true, description = "ZooKeeper connect string, host:port[,host:port...]")
    String connect;

    @Parameters(paramLabel = "PATH", description = "the lock path, e.g. /locks/orders")
    String path;

    @Option(names = "--watch", description = "draw the queue again each time it changes, until interrupted")
    boolean watch;

    @Option(names = "--json", description = "one line of JSON per drawing, for scripts")
    boolean json;

    @Option(
            names = "--leader",
            description = "also show who leads the election at PATH and the epoch of the term (always, on a latch's"
                    + " path)")
    boolean leader;

    @Option(
            names = "--timeout-ms",
            defaultValue = "5000",
            description = "give up when ZooKeeper cannot be reached within this time (default: ${DEFAULT-VALUE})")
    int timeoutMs;

    private PrintWriter out;
    private CuratorFramework client;

    @Override
    public Integer call() throws Exception {
        out = spec.commandLine().getOut();
        ConnectString connectString = parse();
        try (CuratorFramework client =
                Clients.connect(connectString.text(), "zklock-inspect", SESSION_TIMEOUT_MS, timeoutMs)) {
            LockQueueReader reader = new LockQueueReader(client, path);
            this.client = client;
            return watch ? watch(client, reader) : once(reader);
        }
    }

    private ConnectString parse() {
        if (timeoutMs <= 0) {
            throw new ParameterException(spec.commandLine(), "--timeout-ms must be positive, not " + timeoutMs);
        }
        try {
            PathUtils.validatePath(path);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "invalid lock path '" + path + "': " + e.getMessage());
        }
        try {
            return ConnectString.parse(connect);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    private int once(LockQueueReader reader) throws Exception {
        draw(readOrFail(reader, null));
        return 0;
    }

    /** Draws, then waits for the watch (or a reconnection) and draws again, until the thread is interrupted. */
    private int watch(CuratorFramework client, LockQueueReader reader) throws Exception {
        BlockingQueue<Object> changes = new LinkedBlockingQueue<>();
        Watcher watcher = event -> {
            if (event.getType() != Watcher.Event.EventType.None) {
                changes.add(event);
            }
        };
        client.getConnectionStateListenable().addListener((c, state) -> changes.add(state));
        draw(readOrFail(reader, watcher));
        try {
            while (true) {
                Object change = changes.take();
                changes.clear();
                if (change instanceof ConnectionState state && !state.isConnected()) {
                    note("connection " + state + "; waiting for ZooKeeper at '" + connect + "'");
                    continue;
                }
                if (change == ConnectionState.CONNECTED) {
                    // The first connection, which Curator may announce after the first drawing: nothing changed.
                    continue;
                }
                drawAgain(reader, watcher);
            }
        } catch (InterruptedException stopped) {
            return 0;
        }
    }

    private void drawAgain(LockQueueReader reader, Watcher watcher) throws Exception {
        try {
            Optional<LockQueueSnapshot> snapshot = reader.read(watcher);
            if (snapshot.isPresent()) {
                draw(snapshot.get());
            } else {
                note("'" + path + "' is gone: the server removes a lock path some time after its last node goes");
            }
        } catch (KeeperException.ConnectionLossException | KeeperException.SessionExpiredException e) {
            note("connection lost (" + e.code() + "); waiting for ZooKeeper at '" + connect + "'");
        } catch (LockQueueReader.NotALock e) {
            note(e.getMessage());
        }
    }

    private LockQueueSnapshot readOrFail(LockQueueReader reader, Watcher watcher) throws Exception {
        Optional<LockQueueSnapshot> snapshot;
        try {
            snapshot = reader.read(watcher);
        } catch (LockQueueReader.NotALock e) {
            throw new CommandFailure(e.getMessage(), e);
        } catch (KeeperException e) {
            throw new CommandFailure("cannot read '" + path + "' at '" + connect + "': " + e.getMessage(), e);
        }
        return snapshot.orElseThrow(() -> new CommandFailure("no lock at '" + path + "': the path does not exist"));
    }

    private void draw(LockQueueSnapshot snapshot) throws InterruptedException {
        if (json) {
            out.println(
                    isElection(snapshot)
                            ? SnapshotFormat.json(snapshot, ZkLeaderObserver.leaderOf(client, path))
                            : SnapshotFormat.json(snapshot));
        } else {
            if (watch) {
                out.print(System.console() != null ? CLEAR_SCREEN : System.lineSeparator());
            }
            out.print(SnapshotFormat.text(snapshot));
            if (isElection(snapshot)) {
                out.println(ZkLeaderObserver.leaderOf(client, path)
                        .map(now -> "leader: '" + now.participantId() + "', epoch " + now.epoch())
                        .orElse("leader: none"));
            }
        }
        out.flush();
    }

    /** A latch's path (its first node is named latch-), or any lock's queue with --leader. */
    private boolean isElection(LockQueueSnapshot snapshot) {
        if (snapshot.isSemaphore()) {
            return false;
        }
        return leader
                || (!snapshot.nodes().isEmpty()
                        && snapshot.nodes().get(0).node().lockName().equals(LATCH_LOCK_NAME));
    }

    private void note(String message) {
        if (json) {
            out.println(Json.write(Json.object("path", path, "note", message)));
        } else {
            out.println(message);
        }
        out.flush();
    }
}
