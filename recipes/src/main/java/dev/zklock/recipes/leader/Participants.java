package dev.zklock.recipes.leader;

import dev.zklock.recipes.locks.FencingToken;
import dev.zklock.recipes.locks.engine.LockPath;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.curator.framework.recipes.leader.Participant;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * Who takes part in an election, read as Curator reads it: the nodes of the path in queue order, each node's data the
 * participant's id (UTF-8), the first node that still stands the leader. Static methods only.
 */
final class Participants {
    private Participants() {}

    /**
     * Every participant, the leader first: one listing, then one data read per node (a node gone meanwhile is left
     * out).
     */
    static List<Participant> of(LockPath path) throws InterruptedException {
        List<Participant> participants = new ArrayList<>();
        for (String node : path.participantNodes()) {
            String id = idOf(path, node);
            if (id != null) {
                participants.add(new Participant(id, participants.isEmpty()));
            }
        }
        return List.copyOf(participants);
    }

    /**
     * The leader: one listing, then one data read (one more for each node at the front that is gone meanwhile); with
     * no node, Curator's stand-in, an empty id that is not the leader.
     */
    static Participant leader(LockPath path) throws InterruptedException {
        for (String node : path.participantNodes()) {
            String id = idOf(path, node);
            if (id != null) {
                return new Participant(id, true);
            }
        }
        return new Participant("", false);
    }

    /**
     * The leader and its epoch: one listing, then one data read of the first node, whose stat carries the node's
     * creation zxid (one more read for each node at the front that is gone meanwhile); empty with no node. Two round
     * trips, not one: a listing gives names only, not data or creation zxids, and a read needs the name first.
     */
    static Optional<Leader> current(LockPath path) throws InterruptedException {
        for (String node : path.participantNodes()) {
            Stat stat = new Stat();
            String id = idOf(path, node, stat);
            if (id != null) {
                return Optional.of(new Leader(id, FencingToken.of(stat.getCzxid(), 0)));
            }
        }
        return Optional.empty();
    }

    private static String idOf(LockPath path, String node) throws InterruptedException {
        return idOf(path, node, new Stat());
    }

    private static String idOf(LockPath path, String node, Stat stat) throws InterruptedException {
        try {
            byte[] data = path.client().getData().storingStatIn(stat).forPath(node);
            return data == null ? "" : new String(data, StandardCharsets.UTF_8);
        } catch (KeeperException.NoNodeException e) {
            return null;
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            throw path.callFailure("read participant node '" + node + "'", e);
        }
    }
}
