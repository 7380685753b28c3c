package dev.zklock.recipes.test.partition;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The three ZooKeeper servers of a run, each a JVM of its own ({@code QuorumPeerMain}) in the namespace of {@code
 * s1..s3} with a data directory and {@code myid} of its own under the run's directory. Settings: {@code tickTime} 500
 * ms (sessions of 1 to 10 s), {@code initLimit} 10 and {@code syncLimit} 4 ticks (a follower that misses the leader for
 * 2 s elects anew), election connects time out after 1 s, four-letter words {@code srvr,mntr,stat,cons}, no admin
 * server, heap 256 MB. A server's state is read from inside its namespace over its loopback ({@code srvr}), never from
 * the harness's. Safe for use by multiple threads.
 */
final class ServerEnsemble {
    static final int SERVERS = 3;
    static final int CLIENT_PORT = 2181;
    static final int TICK_MS = 500;

    private static final String MAIN = "org.apache.zookeeper.server.quorum.QuorumPeerMain";
    private static final List<String> JVM_OPTIONS = List.of(
            "-Xmx256m",
            "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1",
            "-Dzookeeper.4lw.commands.whitelist=srvr,mntr,stat,cons",
            "-Dzookeeper.admin.enableServer=false",
            "-Dzookeeper.cnxTimeout=1000");

    private final RigNetwork network;
    private final Launcher launcher;
    private final Path runDir;
    private final NodeProcess[] processes = new NodeProcess[SERVERS + 1]; // by server id; guarded by this

    ServerEnsemble(RigNetwork network, Launcher launcher, Path runDir) {
        this.network = network;
        this.launcher = launcher;
        this.runDir = runDir;
    }

    /** Returns the address of server {@code id} (1 to 3). */
    static String address(int id) {
        return RigNetwork.SUBNET_PREFIX + id;
    }

    /** Returns the node name of server {@code id}. */
    static String node(int id) {
        return "s" + id;
    }

    /** Returns the connect string of the ensemble, as clients in the run's namespaces reach it. */
    static String connectString() {
        List<String> servers = new ArrayList<>();
        for (int id = 1; id <= SERVERS; id++) {
            servers.add(address(id) + ":" + CLIENT_PORT);
        }
        return String.join(",", servers);
    }

    /** Writes every server's configuration and starts them all. */
    void startAll() throws IOException {
        for (int id = 1; id <= SERVERS; id++) {
            writeConfig(id);
            start(id);
        }
    }

    /** Starts server {@code id} on its configuration and data directory (a restart after {@link #kill}). */
    synchronized void start(int id) throws IOException {
        Path config = runDir.resolve(node(id)).resolve("zoo.cfg");
        processes[id] = launcher.start(node(id), JVM_OPTIONS, MAIN, List.of(config.toString()), false);
    }

    /** Kills server {@code id} with SIGKILL ({@code kill -9}) and waits for it to end. */
    void kill(int id) throws InterruptedException {
        process(id).kill();
    }

    /** Returns the process of server {@code id} as last started. */
    synchronized NodeProcess process(int id) {
        return processes[id];
    }

    /** Returns server {@code id}'s mode ({@code leader}, {@code follower}), empty if it does not serve or answer. */
    Optional<String> mode(int id) {
        Commands.Result reply = Commands.attempt(List.of(
                "ip",
                "netns",
                "exec",
                network.namespace(node(id)),
                "timeout",
                "2",
                "bash",
                "-c",
                "exec 3<>/dev/tcp/127.0.0.1/" + CLIENT_PORT + " && printf srvr >&3 && cat <&3"));
        for (String line : reply.out().split("\n")) {
            if (line.startsWith("Mode: ")) {
                return Optional.of(line.substring("Mode: ".length()).strip());
            }
        }
        return Optional.empty();
    }

    /** Returns the id of the server that says it leads, empty if none does now. */
    Optional<Integer> leader() {
        for (int id = 1; id <= SERVERS; id++) {
            if (mode(id).filter("leader"::equals).isPresent()) {
                return Optional.of(id);
            }
        }
        return Optional.empty();
    }

    /** Returns the leader's id once one leads and at least {@code serving} servers serve, empty if not within time. */
    Optional<Integer> awaitQuorum(int serving, Duration atMost) throws InterruptedException {
        return Deadline.poll(atMost, () -> {
            int leader = 0;
            int count = 0;
            for (int id = 1; id <= SERVERS; id++) {
                Optional<String> mode = mode(id);
                count += mode.isPresent() ? 1 : 0;
                leader = mode.filter("leader"::equals).isPresent() ? id : leader;
            }
            return leader > 0 && count >= serving ? Optional.of(leader) : Optional.empty();
        });
    }

    private void writeConfig(int id) throws IOException {
        Path dir = Files.createDirectories(runDir.resolve(node(id)));
        Path data = Files.createDirectories(dir.resolve("data"));
        Files.writeString(data.resolve("myid"), id + "\n");
        StringBuilder config = new StringBuilder()
                .append("tickTime=")
                .append(TICK_MS)
                .append("\ninitLimit=10\nsyncLimit=4\ndataDir=")
                .append(data)
                .append("\nclientPort=")
                .append(CLIENT_PORT)
                .append("\nmaxClientCnxns=0\nstandaloneEnabled=false\nreconfigEnabled=false")
                .append("\n4lw.commands.whitelist=srvr,mntr,stat,cons\nadmin.enableServer=false\n");
        for (int server = 1; server <= SERVERS; server++) {
            config.append("server.")
                    .append(server)
                    .append('=')
                    .append(address(server))
                    .append(":2888:3888\n");
        }
        Files.writeString(dir.resolve("zoo.cfg"), config);
    }
}
