package dev.zklock.recipes.test.partition;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Breaks a {@link PartitionRig} for real, one fault at a time, every choice (kind order, targets, lengths, gaps) drawn
 * from a seed: cuts between clients and servers both ways and one way, server partitions (a minority, the leader
 * isolated, a bridge), {@code kill -9} and restart of a server, SIGSTOP of a client beyond its session timeout and of
 * the leader, and a {@link Stranger}'s delete. Every fault is written to the history file, {@code invoke} when it
 * starts and {@code ok} when it is healed ({@code fail} with the reason if it could not be made; a stranger's delete
 * is one {@code info} line, its window the stranger's own, see {@link NemesisLog}); after healing a
 * fault on servers it waits up to 30 s for all three to serve again. The same seed on the same rig makes the same
 * choices, though the ensemble's leader at each moment may differ.
 *
 * <p>Thread safety: {@link #run} and {@link #inject}/{@link #heal} belong to one thread; {@link #stop} may be called
 * from any thread. It makes no ZooKeeper request; a leader lookup is three {@code srvr} four-letter words.
 */
public final class Nemesis implements AutoCloseable {
    private static final Duration QUORUM_WAIT = Duration.ofSeconds(30);

    private final PartitionRig rig;
    private final SplittableRandom random;
    private final FaultMaker maker;
    private final NemesisLog log;
    private final CountDownLatch stopped = new CountDownLatch(1);

    /** Returns a nemesis for {@code rig}, its choices drawn from {@code seed}, its history appended to {@code history}. */
    public Nemesis(PartitionRig rig, Stranger stranger, long seed, Path history) {
        this.rig = rig;
        this.random = new SplittableRandom(seed);
        this.maker = new FaultMaker(rig, stranger, random.split());
        this.log = new NemesisLog(history);
    }

    /**
     * Makes a fault of {@code kind} now and writes its {@code invoke} line; for a stranger's delete, an {@code info}
     * line saying what was asked (the stranger records the delete's own window when it makes it).
     */
    public Episode inject(NemesisFault kind) throws IOException, InterruptedException {
        try {
            Episode episode = maker.inject(kind);
            log.write(kind == NemesisFault.STRANGER_DELETE ? "info" : "invoke", kind, episode.targets());
            return episode;
        } catch (IOException | RuntimeException e) {
            log.write("fail", kind, "not made: " + e.getMessage());
            throw e;
        }
    }

    /**
     * Heals {@code episode}, writes its {@code ok} line (none for a stranger's delete, an instant), and after a fault on
     * servers waits for all three to serve.
     */
    public void heal(Episode episode) throws IOException, InterruptedException {
        episode.heal();
        if (episode.kind() != NemesisFault.STRANGER_DELETE) {
            log.write("ok", episode.kind(), episode.targets());
        }
        if (episode.kind().touchesServers()) {
            rig.awaitQuorum(ServerEnsemble.SERVERS, QUORUM_WAIT);
        }
    }

    /**
     * Runs {@code schedule} for {@code length} or until {@link #stop}, whichever comes first, and returns the faults
     * made by kind. A fault that could not be made (no client process to pause, no leader) is logged as {@code fail}
     * and skipped. Whatever is in effect when it ends is healed.
     */
    public Map<NemesisFault, Integer> run(Duration length, NemesisSchedule schedule)
            throws IOException, InterruptedException {
        long end = System.nanoTime() + length.toNanos();
        Map<NemesisFault, Integer> made = new EnumMap<>(NemesisFault.class);
        List<NemesisFault> round = new ArrayList<>();
        while (!waitOrStop(schedule.gap(random), end)) {
            if (round.isEmpty()) {
                round.addAll(schedule.kinds());
                shuffle(round);
            }
            NemesisFault kind = round.remove(0);
            Duration faultLength = schedule.faultLength(random);
            if (kind == NemesisFault.PAUSE_CLIENT) {
                faultLength = faultLength.plus(rig.settings().sessionTimeout());
            } else if (kind == NemesisFault.STRANGER_DELETE) {
                faultLength = Duration.ZERO; // an instant: done when asked
            }
            Episode episode;
            try {
                episode = inject(kind);
            } catch (IllegalStateException notMade) {
                continue;
            }
            made.merge(kind, 1, Integer::sum);
            try {
                waitOrStop(faultLength, end);
            } finally {
                heal(episode);
            }
        }
        return made;
    }

    /** Ends a {@link #run} early: the fault in effect is healed at once. */
    public void stop() {
        stopped.countDown();
    }

    /** Closes the history file. */
    @Override
    public void close() {
        log.close();
    }

    /** Waits {@code length} (cut short at {@code end}); returns whether the run is over (stopped or past its end). */
    private boolean waitOrStop(Duration length, long end) throws InterruptedException {
        long wait = Math.min(length.toNanos(), end - System.nanoTime());
        boolean stop = wait > 0 ? stopped.await(wait, TimeUnit.NANOSECONDS) : stopped.getCount() == 0;
        return stop || end - System.nanoTime() <= 0;
    }

    private void shuffle(List<NemesisFault> kinds) {
        for (int i = kinds.size() - 1; i > 0; i--) {
            kinds.set(i, kinds.set(random.nextInt(i + 1), kinds.get(i)));
        }
    }
}
