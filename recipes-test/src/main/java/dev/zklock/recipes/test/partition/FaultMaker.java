package dev.zklock.recipes.test.partition;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * Makes each kind of {@link NemesisFault} for real on a {@link PartitionRig}, its targets drawn from a random source,
 * and returns the {@link Episode} that undoes it. Confined to the nemesis's thread (the random source is not shared).
 */
final class FaultMaker {
    private final PartitionRig rig;
    private final Stranger stranger;
    private final SplittableRandom random;

    FaultMaker(PartitionRig rig, Stranger stranger, SplittableRandom random) {
        this.rig = rig;
        this.stranger = stranger;
        this.random = random;
    }

    /** Makes a fault of {@code kind}; on failure, undoes what it had made and throws. */
    Episode inject(NemesisFault kind) throws IOException, InterruptedException {
        return switch (kind) {
            case CUT -> cut(true);
            case CUT_ONE_WAY -> cut(false);
            case PARTITION -> isolate(kind, 1 + random.nextInt(ServerEnsemble.SERVERS), "");
            case ISOLATE_LEADER -> isolateLeader();
            case BRIDGE -> bridge();
            case KILL -> kill();
            case PAUSE_CLIENT -> pauseClient();
            case PAUSE_LEADER -> pauseLeader();
            case STRANGER_DELETE -> new Episode(kind, stranger.deleteLockNodes());
        };
    }

    private Episode cut(boolean bothWays) throws IOException, InterruptedException {
        String client =
                PartitionRig.clientNode(1 + random.nextInt(rig.settings().clients()));
        String server = ServerEnsemble.node(1 + random.nextInt(ServerEnsemble.SERVERS));
        Route route = random.nextBoolean() ? Route.BLACKHOLE : Route.PROHIBIT;
        String from = random.nextBoolean() ? client : server;
        String to = from.equals(client) ? server : client;
        String targets = bothWays ? client + " " + server + " " : from + "->" + to + " ";
        Episode episode = new Episode(bothWays ? NemesisFault.CUT : NemesisFault.CUT_ONE_WAY, targets + route.type());
        return safely(episode, () -> {
            block(episode, from, to, route);
            if (bothWays) {
                block(episode, to, from, route);
            }
        });
    }

    private Episode isolateLeader() throws IOException, InterruptedException {
        Optional<Integer> leader = rig.leader();
        int server = leader.orElseGet(() -> 1 + random.nextInt(ServerEnsemble.SERVERS));
        return isolate(NemesisFault.ISOLATE_LEADER, server, leader.isPresent() ? "leader " : "no leader found; ");
    }

    private Episode isolate(NemesisFault kind, int alone, String note) throws IOException, InterruptedException {
        List<Integer> others = others(alone);
        Episode episode = new Episode(kind, note + "s" + alone + " | s" + others.get(0) + " s" + others.get(1));
        return safely(episode, () -> {
            for (int other : others) {
                cutServers(episode, alone, other);
            }
        });
    }

    private Episode bridge() throws IOException, InterruptedException {
        int middle = 1 + random.nextInt(ServerEnsemble.SERVERS);
        List<Integer> ends = others(middle);
        Episode episode =
                new Episode(NemesisFault.BRIDGE, "s" + ends.get(0) + " | s" + ends.get(1) + " bridged by s" + middle);
        return safely(episode, () -> cutServers(episode, ends.get(0), ends.get(1)));
    }

    private Episode kill() throws IOException, InterruptedException {
        int server = 1 + random.nextInt(ServerEnsemble.SERVERS);
        Episode episode = new Episode(NemesisFault.KILL, ServerEnsemble.node(server));
        return safely(episode, () -> {
            rig.killServer(server);
            episode.onHeal(() -> rig.restartServer(server));
        });
    }

    private Episode pauseClient() throws IOException, InterruptedException {
        List<NodeProcess> running = new ArrayList<>();
        for (int i = 1; i <= rig.settings().clients(); i++) {
            rig.client(i).filter(NodeProcess::isAlive).ifPresent(running::add);
        }
        if (running.isEmpty()) {
            throw new IllegalStateException("no client process runs to pause");
        }
        NodeProcess client = running.get(random.nextInt(running.size()));
        return pause(NemesisFault.PAUSE_CLIENT, client, client.node());
    }

    private Episode pauseLeader() throws IOException, InterruptedException {
        int leader = rig.leader().orElseThrow(() -> new IllegalStateException("no leader to pause"));
        return pause(NemesisFault.PAUSE_LEADER, rig.server(leader), "leader " + ServerEnsemble.node(leader));
    }

    private static Episode pause(NemesisFault kind, NodeProcess process, String targets)
            throws IOException, InterruptedException {
        Episode episode = new Episode(kind, targets + " pid " + process.pid());
        return safely(episode, () -> {
            process.pause();
            episode.onHeal(process::resume);
        });
    }

    private void cutServers(Episode episode, int a, int b) {
        block(episode, ServerEnsemble.node(a), ServerEnsemble.node(b), Route.BLACKHOLE);
        block(episode, ServerEnsemble.node(b), ServerEnsemble.node(a), Route.BLACKHOLE);
    }

    private void block(Episode episode, String node, String target, Route route) {
        rig.block(node, target, route);
        episode.onHeal(() -> rig.unblock(node, target, route));
    }

    private static List<Integer> others(int server) {
        List<Integer> others = new ArrayList<>();
        for (int id = 1; id <= ServerEnsemble.SERVERS; id++) {
            if (id != server) {
                others.add(id);
            }
        }
        return others;
    }

    private static Episode safely(Episode episode, Episode.Undo make) throws IOException, InterruptedException {
        try {
            make.run();
            return episode;
        } catch (IOException | InterruptedException | RuntimeException e) {
            episode.heal();
            throw e;
        }
    }
}
