package dev.zklock.recipes.test.partition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every kind of fault the nemesis makes, made for real on one rig and seen from outside (routes in the namespaces,
 * servers' {@code srvr}, process states, the observer's input), then healed; and a brief schedule's history.
 */
@Timeout(300)
final class NemesisIT {
    private static final Duration WAIT = Duration.ofSeconds(40);

    private static PartitionRig rig;
    private static Nemesis nemesis;
    private static Path history;
    private static Path observed;

    @BeforeAll
    static void startRig() throws Exception {
        rig = PartitionRig.start(new RigSettings(0xfa17L, 3, Duration.ofSeconds(2)));
        history = rig.runDir().resolve("nemesis.history");
        observed = rig.runDir().resolve("observer.history");
        nemesis = new Nemesis(rig, rig.stranger(), 7, history);
        for (int i = 1; i <= 3; i++) {
            rig.startClient(
                    i, RigProbe.class.getName(), probeArgs("c" + i, rig.runDir().resolve("c" + i + ".history")));
        }
        rig.startObserver(RigProbe.class.getName(), probeArgs("obs", observed));
    }

    @AfterAll
    static void closeRig() throws Exception {
        if (rig != null) {
            nemesis.close();
            rig.close();
        }
    }

    @Test
    void inject_cut_addsRoutesOnBothSidesUntilHealed() throws Exception {
        Episode episode = nemesis.inject(NemesisFault.CUT);
        String[] targets = episode.targets().split(" "); // c2 s1 blackhole

        assertThat(cuts(targets[0])).containsExactly(targets[2] + " " + PartitionRig.address(targets[1]));
        assertThat(cuts(targets[1])).containsExactly(targets[2] + " " + PartitionRig.address(targets[0]));
        nemesis.heal(episode);
        assertThat(cuts(targets[0])).isEmpty();
        assertThat(cuts(targets[1])).isEmpty();
    }

    @Test
    void inject_cutOneWay_addsARouteOnTheSendingSideOnly() throws Exception {
        Episode episode = nemesis.inject(NemesisFault.CUT_ONE_WAY);
        String[] targets = episode.targets().split("->| "); // c2->s1 prohibit

        assertThat(cuts(targets[0])).containsExactly(targets[2] + " " + PartitionRig.address(targets[1]));
        assertThat(cuts(targets[1])).isEmpty();
        nemesis.heal(episode);
        assertThat(cuts(targets[0])).isEmpty();
    }

    @Test
    void inject_partition_takesTheMinorityOutOfServiceAndTheMajorityServes() throws Exception {
        Episode episode = nemesis.inject(NemesisFault.PARTITION);
        int alone = serverIn(episode.targets(), 0); // s3 | s1 s2

        await().atMost(WAIT).until(() -> rig.serverMode(alone).isEmpty());
        assertThat(rig.awaitQuorum(2, WAIT)).isPresent().isNotEqualTo(alone);
        nemesis.heal(episode);
        assertThat(rig.awaitQuorum(3, WAIT)).isPresent();
    }

    @Test
    void inject_isolateLeader_makesTheOthersElectAnotherLeader() throws Exception {
        int leader = rig.awaitQuorum(3, WAIT).orElseThrow();
        Episode episode = nemesis.inject(NemesisFault.ISOLATE_LEADER);

        assertThat(episode.targets()).startsWith("leader s" + leader + " | ");
        await().atMost(WAIT).until(() -> rig.serverMode(leader).isEmpty());
        await().atMost(WAIT)
                .until(() -> rig.leader().filter(now -> now != leader).isPresent());
        nemesis.heal(episode);
        assertThat(rig.awaitQuorum(3, WAIT)).isPresent();
    }

    @Test
    void inject_bridge_cutsTheEndsApartAndKeepsAQuorum() throws Exception {
        Episode episode = nemesis.inject(NemesisFault.BRIDGE);
        int end1 = serverIn(episode.targets(), 0); // s1 | s3 bridged by s2
        int end2 = serverIn(episode.targets(), 2);

        assertThat(cuts("s" + end1)).containsExactly("blackhole " + ServerEnsemble.address(end2));
        assertThat(cuts("s" + end2)).containsExactly("blackhole " + ServerEnsemble.address(end1));
        assertThat(rig.awaitQuorum(2, WAIT)).isPresent();
        nemesis.heal(episode);
        assertThat(rig.awaitQuorum(3, WAIT)).isPresent();
    }

    @Test
    void inject_kill_endsTheServerAndHealRestartsIt() throws Exception {
        Episode episode = nemesis.inject(NemesisFault.KILL);
        int server = serverIn(episode.targets(), 0);

        assertThat(rig.server(server).isAlive()).isFalse();
        nemesis.heal(episode);
        assertThat(rig.server(server).isAlive()).isTrue();
        assertThat(rig.awaitQuorum(3, WAIT)).isPresent();
    }

    @Test
    void inject_pauseClient_stopsAClientJvmUntilHealed() throws Exception {
        Episode episode = nemesis.inject(NemesisFault.PAUSE_CLIENT);
        int client = Integer.parseInt(episode.targets().substring(1, 2)); // c2 pid 1234

        NodeProcess process = rig.client(client).orElseThrow();
        assertThat(episode.targets()).isEqualTo("c" + client + " pid " + process.pid());
        assertThat(process.isStopped()).isTrue();
        nemesis.heal(episode);
        await().atMost(WAIT).until(() -> !process.isStopped());
    }

    @Test
    void inject_pauseLeader_stopsTheLeaderJvmAndTheOthersElectAnother() throws Exception {
        int leader = rig.awaitQuorum(3, WAIT).orElseThrow();
        Episode episode = nemesis.inject(NemesisFault.PAUSE_LEADER);

        assertThat(rig.server(leader).isStopped()).isTrue();
        await().atMost(WAIT)
                .until(() -> rig.leader().filter(now -> now != leader).isPresent());
        nemesis.heal(episode);
        assertThat(rig.server(leader).isStopped()).isFalse();
        assertThat(rig.awaitQuorum(3, WAIT)).isPresent();
    }

    @Test
    void inject_strangerDelete_asksTheObserverOnItsInput() throws Exception {
        Episode episode = nemesis.inject(NemesisFault.STRANGER_DELETE);
        nemesis.heal(episode);

        await().atMost(WAIT)
                .until(() ->
                        Files.exists(observed) && Files.readString(observed).contains("\tstranger-delete"));
    }

    @Test
    void run_briefSchedule_logsAnInvokeAndAnOkForEveryFaultAndAnInfoForEveryStrangersDelete() throws Exception {
        List<NemesisFault> kinds = List.of(
                NemesisFault.CUT, NemesisFault.CUT_ONE_WAY, NemesisFault.PAUSE_CLIENT, NemesisFault.STRANGER_DELETE);
        Path briefHistory = rig.runDir().resolve("brief.history");
        Map<NemesisFault, Integer> made;
        try (Nemesis brief = new Nemesis(rig, rig.stranger(), 11, briefHistory)) {
            made = brief.run(Duration.ofSeconds(20), NemesisSchedule.brief(kinds));
        }

        assertThat(made.keySet()).containsExactlyInAnyOrderElementsOf(kinds);
        List<String[]> lines = Files.readAllLines(briefHistory).stream()
                .map(line -> line.split("\t", -1))
                .toList();
        assertThat(lines).allSatisfy(fields -> assertThat(fields).hasSize(6).contains("nemesis", "-"));
        List<String[]> asked = lines.stream()
                .filter(fields -> fields[3].equals("stranger-delete"))
                .toList();
        assertThat(asked).hasSize(made.get(NemesisFault.STRANGER_DELETE)).allSatisfy(fields -> assertThat(fields[2])
                .isEqualTo("info"));
        lines = lines.stream().filter(fields -> !asked.contains(fields)).toList();
        int windows = made.values().stream().mapToInt(Integer::intValue).sum() - asked.size();
        assertThat(lines).hasSize(2 * windows);
        for (int i = 0; i < lines.size(); i += 2) {
            assertThat(lines.get(i)[2]).isEqualTo("invoke");
            assertThat(lines.get(i + 1)[2]).isEqualTo("ok");
            assertThat(lines.get(i + 1)[3]).isEqualTo(lines.get(i)[3]);
            assertThat(Long.parseLong(lines.get(i + 1)[0])).isGreaterThan(Long.parseLong(lines.get(i)[0]));
        }
    }

    private static List<String> probeArgs(String id, Path probeHistory) {
        return List.of(
                "--connect", rig.connectString(), "--id", id, "--history", probeHistory.toString(), "--seconds", "600");
    }

    /** Returns the blackhole and prohibit routes of {@code node}'s namespace, e.g. {@code blackhole 198.18.0.1}. */
    private static List<String> cuts(String node) {
        return rig.routes(node)
                .lines()
                .map(String::strip)
                .filter(route -> route.startsWith("blackhole ") || route.startsWith("prohibit "))
                .toList();
    }

    /** Returns the server number of the {@code index}-th word of {@code targets} ({@code s2} gives 2). */
    private static int serverIn(String targets, int index) {
        return Integer.parseInt(targets.split(" ")[index].substring(1));
    }
}
