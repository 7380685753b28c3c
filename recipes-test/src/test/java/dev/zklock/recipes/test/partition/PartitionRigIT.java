package dev.zklock.recipes.test.partition;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The rig for real, as root: namespaces, three server JVMs with a quorum, a client JVM that creates a node, a blackhole
 * cut that silences that client from a server and a heal that restores it, a server killed with {@code kill -9} and
 * restarted, and nothing of the run left after close.
 */
@Timeout(120)
final class PartitionRigIT {
    private static final Duration QUORUM_WAIT = Duration.ofSeconds(40);
    private static final Duration PROBE_WAIT = Duration.ofSeconds(40);

    private static PartitionRig rig;

    private static final String STALE = "zkpdead-s1";
    private static Process staleProcess;

    @BeforeAll
    static void startRig() throws Exception {
        // What a run that died leaves: a namespace of the prefix, no owner, a process still inside.
        assertThat(new ProcessBuilder("ip", "netns", "add", STALE).start().waitFor())
                .isZero();
        staleProcess = new ProcessBuilder("ip", "netns", "exec", STALE, "sleep", "600").start();
        rig = PartitionRig.start(RigSettings.of(0x5eedL, 3));
    }

    @AfterAll
    static void closeRig() throws Exception {
        if (rig == null) {
            return; // start failed, and closed what it had made
        }
        String runId = rig.runId();
        rig.close();
        rig.close();

        assertThat(Namespaces.ofRun(runId))
                .as("namespaces of run %s after close", runId)
                .isEmpty();
    }

    @Test
    void start_staleNamespaceOfADeadRun_deletesItAndKillsWhatRanInside() throws Exception {
        assertThat(Namespaces.list()).doesNotContain(STALE);
        assertThat(staleProcess.waitFor(PROBE_WAIT.toSeconds(), TimeUnit.SECONDS))
                .isTrue();
    }

    @Test
    void start_buildsEveryNamespaceAndAQuorumOfThree() {
        assertThat(Namespaces.ofRun(rig.runId()))
                .containsExactlyInAnyOrder(List.of("br", "s1", "s2", "s3", "c1", "c2", "c3", "obs").stream()
                        .map(rig::namespace)
                        .toArray(String[]::new));
        assertThat(rig.leader()).isPresent();
        assertThat(List.of(1, 2, 3)).allSatisfy(id -> assertThat(rig.serverMode(id))
                .hasValueSatisfying(mode -> assertThat(mode).isIn("leader", "follower")));
        assertThat(rig.routes("c1")).contains("198.18.0.0/24 dev eth0").doesNotContain("default");
    }

    @Test
    void startClient_probeInClientNamespace_createsANode() throws Exception {
        NodeProcess probe = rig.startClient(1, RigProbe.class.getName(), List.of("--connect", rig.connectString()));

        assertThat(exit(probe)).as(log(probe)).hasValue(0);
        assertThat(log(probe)).contains("created /rig-probe/probe");
    }

    @Test
    void block_blackholeToAServer_silencesThatClientUntilUnblocked() throws Exception {
        assertCutUntilUnblocked(2, 1, Route.BLACKHOLE);
    }

    @Test
    void block_prohibitToAServer_refusesThatClientUntilUnblocked() throws Exception {
        assertCutUntilUnblocked(3, 2, Route.PROHIBIT);
    }

    /** Client {@code client}'s probe on server {@code server} alone: no connection while cut, a node once healed. */
    private static void assertCutUntilUnblocked(int client, int server, Route route) throws Exception {
        String clientNode = PartitionRig.clientNode(client);
        String serverNode = ServerEnsemble.node(server);
        String connect = ServerEnsemble.address(server) + ":" + ServerEnsemble.CLIENT_PORT;
        List<String> args = List.of("--connect", connect, "--id", route.type(), "--timeout-ms", "3000");
        rig.block(clientNode, serverNode, route);
        try {
            assertThat(rig.routes(clientNode)).contains(route.type() + " " + ServerEnsemble.address(server));
            NodeProcess cut = rig.startClient(client, RigProbe.class.getName(), args);
            assertThat(exit(cut)).as(log(cut)).hasValue(3);
            assertThat(log(cut)).contains("probe " + route.type() + ": no connection to " + connect);
        } finally {
            rig.unblock(clientNode, serverNode, route);
        }

        NodeProcess healed = rig.startClient(client, RigProbe.class.getName(), args);
        assertThat(exit(healed)).as(log(healed)).hasValue(0);
        assertThat(log(healed)).contains("probe " + route.type() + ": created /rig-probe/" + route.type());
    }

    @Test
    void killServer_andRestart_keepsTheQuorum() throws Exception {
        int leader = rig.leader().orElseThrow();
        int victim = leader % 3 + 1;
        long oldPid = rig.server(victim).pid();

        rig.killServer(victim);

        assertThat(rig.server(victim).isAlive()).isFalse();
        assertThat(rig.awaitQuorum(2, QUORUM_WAIT)).isPresent();
        rig.restartServer(victim);
        assertThat(rig.server(victim).pid()).isNotEqualTo(oldPid);
        assertThat(rig.awaitQuorum(3, QUORUM_WAIT)).isPresent();
        NodeProcess probe = rig.startClient(
                3,
                RigProbe.class.getName(),
                List.of("--connect", ServerEnsemble.address(victim) + ":2181", "--id", "after-restart"));
        assertThat(exit(probe)).as(log(probe)).hasValue(0);
    }

    private static OptionalInt exit(NodeProcess process) throws InterruptedException {
        return process.waitFor(PROBE_WAIT);
    }

    private static String log(NodeProcess process) throws IOException {
        return Files.readString(process.log());
    }
}
