package dev.zklock.recipes.test.partition;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A real ZooKeeper ensemble in Linux network namespaces: three server JVMs ({@code <id>-s1..s3}, 198.18.0.1-3), client
 * namespaces {@code <id>-c1..cN} (198.18.0.11..) and an observer's ({@code <id>-obs}, 198.18.0.100), all on one bridge
 * that lives in a namespace of its own ({@code <id>-br}); nothing in the root namespace, no route out. The harness
 * reaches the servers only through processes it starts inside namespaces. Cuts are routes inside a node's namespace
 * ({@link #block}), so they act on what that node sends.
 *
 * <p><b>Lifecycle.</b> {@link #start} first deletes the namespaces of earlier runs whose harness died (any {@code zkp*}
 * namespace with no live owner), builds the network, starts the servers and waits for a quorum. {@link #close} (also
 * run on any failure of {@code start}, and by a shutdown hook on Ctrl-C) lets paused processes go, kills every process
 * the rig started and deletes every namespace of the run; it is idempotent. The run's directory (server data, logs,
 * histories) stays.
 *
 * <p><b>Observer protocol.</b> The observer's standard input is a pipe: the rig writes {@code stranger-delete} on a
 * line of its own when the nemesis asks for a stranger's delete of lock nodes.
 *
 * <p>Thread safety: safe for use by multiple threads. It makes no ZooKeeper request of its own; reading a server's
 * state is one {@code srvr} four-letter word over that server's loopback.
 */
public final class PartitionRig implements AutoCloseable {
    /** The observer's node name. */
    public static final String OBSERVER = "obs";

    /**
     * Where each live run records its harness's pid: one place for every JVM whatever its {@code java.io.tmpdir}, on
     * the tmpfs that, like the namespaces' own {@code /run/netns}, a reboot empties.
     */
    private static final Path OWNER_DIR = Path.of("/run/zklock-rig");

    private static final Duration QUORUM_WAIT = Duration.ofSeconds(60);

    private final RigSettings settings;
    private final String runId;
    private final Path runDir;
    private final RigNetwork network;
    private final Launcher launcher;
    private final ServerEnsemble servers;
    private final Map<String, NodeProcess> workloads = new HashMap<>(); // last started per node; guarded by this
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Thread shutdownHook;

    private PartitionRig(RigSettings settings, Path runDir) {
        this.settings = settings;
        this.runId = settings.runId();
        this.runDir = runDir;
        this.network = new RigNetwork(runId);
        this.launcher = new Launcher(network, ChildJvm.ofRunningJvm(), runDir);
        this.servers = new ServerEnsemble(network, launcher, runDir);
        this.shutdownHook = new Thread(this::closeQuietly, "partition-rig-teardown-" + runId);
    }

    /**
     * Builds the rig of {@code settings} and returns it once the ensemble has a leader and all three servers serve.
     *
     * @throws RigUnavailableException if namespaces cannot be made here (not root, no {@code ip}), with a one-line
     *     message
     * @throws IllegalStateException if a live run owns the same run id, or the quorum does not form within 60 s
     */
    public static PartitionRig start(RigSettings settings) throws IOException, InterruptedException {
        Namespaces.checkAvailable();
        String runId = settings.runId();
        Optional<ProcessHandle> owner = Namespaces.owner(OWNER_DIR, runId);
        if (owner.isPresent()) {
            throw new IllegalStateException("run id " + runId + " (seed " + settings.seed() + ") is in use by pid "
                    + owner.get().pid());
        }
        Namespaces.deleteStale(OWNER_DIR);
        Namespaces.claim(OWNER_DIR, runId);
        PartitionRig rig = new PartitionRig(settings, Files.createTempDirectory("zklock-" + runId + "-"));
        Runtime.getRuntime().addShutdownHook(rig.shutdownHook);
        try {
            rig.build();
            return rig;
        } catch (IOException | InterruptedException | RuntimeException e) {
            rig.close();
            throw e;
        }
    }

    private void build() throws IOException, InterruptedException {
        network.createBridge();
        for (int id = 1; id <= ServerEnsemble.SERVERS; id++) {
            network.addNode(ServerEnsemble.node(id), ServerEnsemble.address(id));
        }
        for (int i = 1; i <= settings.clients(); i++) {
            network.addNode(clientNode(i), address(clientNode(i)));
        }
        network.addNode(OBSERVER, address(OBSERVER));
        servers.startAll();
        if (servers.awaitQuorum(ServerEnsemble.SERVERS, QUORUM_WAIT).isEmpty()) {
            throw new IllegalStateException("no quorum of " + ServerEnsemble.SERVERS + " servers within " + QUORUM_WAIT
                    + " (run " + runId + ", logs in " + runDir + ")");
        }
    }

    /** Returns client {@code i}'s node name, {@code c<i>}. */
    public static String clientNode(int i) {
        return "c" + i;
    }

    /** Returns the address of {@code node} ({@code s1..s3}, {@code c1..c9}, {@code obs}). */
    public static String address(String node) {
        if (node.equals(OBSERVER)) {
            return RigNetwork.SUBNET_PREFIX + 100;
        }
        int number = Integer.parseInt(node.substring(1));
        return RigNetwork.SUBNET_PREFIX + (node.charAt(0) == 's' ? number : 10 + number);
    }

    /** Returns the settings the rig was built from. */
    public RigSettings settings() {
        return settings;
    }

    /** Returns the run id that prefixes every namespace of the run. */
    public String runId() {
        return runId;
    }

    /** Returns the run's directory: server data and configurations, one log per node, and room for histories. */
    public Path runDir() {
        return runDir;
    }

    /** Returns the ensemble's connect string as the run's namespaces reach it. */
    public String connectString() {
        return ServerEnsemble.connectString();
    }

    /** Returns the namespace of {@code node}. */
    public String namespace(String node) {
        return network.namespace(node);
    }

    /** Starts {@code mainClass} with {@code args} in client {@code i}'s namespace (a JVM of 256 MB heap at most). */
    public NodeProcess startClient(int i, String mainClass, List<String> args) throws IOException {
        if (i < 1 || i > settings.clients()) {
            throw new IllegalArgumentException("client must be 1 to " + settings.clients() + ", not " + i);
        }
        return remember(launcher.start(clientNode(i), List.of("-Xmx256m"), mainClass, args, false));
    }

    /** Starts {@code mainClass} with {@code args} in the observer's namespace, its standard input a pipe. */
    public NodeProcess startObserver(String mainClass, List<String> args) throws IOException {
        return remember(launcher.start(OBSERVER, List.of("-Xmx256m"), mainClass, args, true));
    }

    /** Returns the process last started in client {@code i}'s namespace, empty if none was. */
    public synchronized Optional<NodeProcess> client(int i) {
        return Optional.ofNullable(workloads.get(clientNode(i)));
    }

    /** Returns the observer process last started, empty if none was. */
    public synchronized Optional<NodeProcess> observer() {
        return Optional.ofNullable(workloads.get(OBSERVER));
    }

    /**
     * Returns the stranger that asks the observer process to delete lock nodes, by the line {@value
     * Stranger#OBSERVER_COMMAND} on its standard input; it fails if no observer runs.
     */
    public Stranger stranger() {
        return () -> {
            NodeProcess observer = observer()
                    .filter(NodeProcess::isAlive)
                    .orElseThrow(() -> new IllegalStateException("no observer process runs to delete lock nodes"));
            observer.send(Stranger.OBSERVER_COMMAND);
            return "asked observer pid " + observer.pid();
        };
    }

    private synchronized NodeProcess remember(NodeProcess process) {
        workloads.put(process.node(), process);
        return process;
    }

    /** Returns the process of server {@code id} (1 to 3) as last started. */
    public NodeProcess server(int id) {
        return servers.process(id);
    }

    /** Kills server {@code id} with SIGKILL and waits for it to end. */
    public void killServer(int id) throws InterruptedException {
        servers.kill(id);
    }

    /** Starts server {@code id} again on its own data directory. */
    public void restartServer(int id) throws IOException {
        servers.start(id);
    }

    /** Returns server {@code id}'s mode by {@code srvr} ({@code leader}, {@code follower}), empty if not serving. */
    public Optional<String> serverMode(int id) {
        return servers.mode(id);
    }

    /** Returns the id of the server that leads now, by {@code srvr}, empty if none. */
    public Optional<Integer> leader() {
        return servers.leader();
    }

    /** Returns the leader's id once a leader and {@code serving} servers serve, empty if not within {@code atMost}. */
    public Optional<Integer> awaitQuorum(int serving, Duration atMost) throws InterruptedException {
        return servers.awaitQuorum(serving, atMost);
    }

    /** Adds a {@code route} in {@code node}'s namespace to {@code target}'s address: what {@code node} sends is cut. */
    public void block(String node, String target, Route route) {
        network.addRoute(node, route.type(), address(target));
    }

    /** Removes the route {@link #block} added. */
    public void unblock(String node, String target, Route route) {
        network.removeRoute(node, route.type(), address(target));
    }

    /** Returns {@code ip route} of {@code node}'s namespace. */
    public String routes(String node) {
        return network.routes(node);
    }

    /**
     * Lets every paused process go, kills every process the rig started and deletes every namespace of the run.
     * Idempotent.
     */
    @Override
    public void close() throws InterruptedException {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            launcher.killAll();
        } finally {
            network.deleteAll();
            Namespaces.release(OWNER_DIR, runId);
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running this close, or is about to find it done
            }
        }
    }

    private void closeQuietly() {
        try {
            close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
