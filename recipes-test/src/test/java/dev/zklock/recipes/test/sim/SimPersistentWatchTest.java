package dev.zklock.recipes.test.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.zklock.recipes.locks.engine.Reply;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The simulator's persistent recursive watches, the model a watch-driven queue view stands on: every create and delete
 * below the watched path reaches the client in the server's order and before the reply of any later request, so a
 * listing plus the events after its reply is every later listing; an outage of the same session keeps the watch but
 * loses its events, and the watcher hears of the outage (Disconnected, then SyncConnected, as ZooKeeper's client tells
 * every watcher); the session's end or a removal drops it.
 */
final class SimPersistentWatchTest {
    private static final String ROOT = "/locks";
    private static final String QUEUE = ROOT + "/q";

    private final List<SimClient> clients = new ArrayList<>();

    @AfterEach
    void disposeClients() {
        clients.forEach(SimClient::dispose);
    }

    /**
     * Outcome table. Actors: a stranger session that creates and deletes nodes under the queue at random moments; the
     * watching client, which lists the queue once after its addWatch and again and again while the changes go on.
     * Acceptable: at every later listing's reply, the first listing plus the events heard since equals that listing.
     * Forbidden: a listing that holds a change whose event has not arrived yet, or an event of a change the listing
     * does not hold yet (an event after the reply it should precede, or out of the server's order).
     */
    @Test
    void events_whileListingsGoOn_arriveBeforeEveryLaterReplyInTheServersOrder() {
        int listings = 0;
        for (long seed = 1; seed <= 200; seed++) {
            listings += viewMatchesEveryListing(seed);
        }
        assertThat(listings).as("listings compared with the view").isGreaterThan(200 * 10);
    }

    @Test
    void outage_ofTheSameSession_keepsTheWatchButLosesItsEvents() {
        SimWorld world = world(7);
        SimClient alice = client("alice", world);
        long stranger = world.server.openSession();
        List<String> heard = new ArrayList<>();
        addWatch(world, alice, recorder(heard));

        world.server.create(stranger, QUEUE, "before-", true, true);
        runUntilIdle(world);
        alice.suspend(1_000);
        world.server.create(stranger, QUEUE, "during-", true, true);
        runUntilIdle(world);
        assertThat(alice.isConnected()).as("reconnected on the same session").isTrue();
        world.server.create(stranger, QUEUE, "after-", true, true);
        runUntilIdle(world);

        assertThat(heard)
                .containsExactly(
                        "NodeCreated " + QUEUE + "/before-0000000000",
                        "Disconnected",
                        "SyncConnected",
                        "NodeCreated " + QUEUE + "/after-0000000002");
        assertThat(world.server.watchCount(alice.session())).isEqualTo(1);
    }

    /**
     * A persistent watch's event on its way vouches as a one-shot watch's does: the checker asks the client whether it
     * hears of a deleted node ({@code SimChecker.localGrant}), and the million-seed run with views stopped at seed
     * 20,899 on a cohort's grant whose node's delete was on its way as the root's event, uncounted before.
     */
    @Test
    void event_onItsWay_isHeardOfUntilHandedOver() {
        SimWorld world = world(13);
        SimClient alice = client("alice", world);
        long stranger = world.server.openSession();
        List<String> heard = new ArrayList<>();
        addWatch(world, alice, recorder(heard));
        String node = world.server.create(stranger, QUEUE, "n-", true, true).name();
        runUntilIdle(world);
        String path = QUEUE + "/" + node;

        world.server.delete(path);

        assertThat(alice.hearsOf(path)).as("the delete's event on its way").isTrue();
        runUntilIdle(world);
        assertThat(heard).containsExactly("NodeCreated " + path, "NodeDeleted " + path);
        assertThat(alice.hearsOf(path)).as("once handed over").isFalse();
    }

    @Test
    void watch_endsWithTheSessionOrARemoval() {
        SimWorld world = world(11);
        SimClient alice = client("alice", world);
        SimClient bob = client("bob", world);
        Watcher aliceWatcher = recorder(new ArrayList<>());
        List<String> bobHeard = new ArrayList<>();
        Watcher bobWatcher = recorder(bobHeard);
        addWatch(world, alice, aliceWatcher);
        addWatch(world, bob, bobWatcher);

        long aliceSession = alice.session();
        alice.expireOnServer();
        CompletableFuture<Reply> removed = session(world, bob).removeWatches(ROOT, bobWatcher);
        runUntilIdle(world);
        world.server.create(world.server.openSession(), QUEUE, "late-", true, true);
        runUntilIdle(world);

        assertThat(world.server.watchCount(aliceSession)).isZero();
        assertThat(removed).isCompletedWithValue(new Reply.Done());
        assertThat(world.server.watchCount(bob.session())).isZero();
        assertThat(bobHeard).isEmpty();
        CompletableFuture<Reply> again = session(world, bob).removeWatches(ROOT, bobWatcher);
        runUntilIdle(world);
        assertThat(again.join()).isInstanceOf(Reply.Failed.class);
    }

    /** One seed's run: returns how many listings it compared with the view. */
    private int viewMatchesEveryListing(long seed) {
        SimWorld world = world(seed);
        SimClient alice = client("alice-" + seed, world);
        long stranger = world.server.openSession();
        TreeSet<String> view = new TreeSet<>();
        boolean[] listed = {false};
        Watcher watcher = event -> {
            if (!listed[0]) {
                return; // before the first listing's reply: the listing holds it
            }
            String name = SimServer.nameOf(event.getPath());
            if (event.getType() == EventType.NodeCreated) {
                assertThat(view.add(name))
                        .as("seed %d: %s created twice", seed, name)
                        .isTrue();
            } else if (event.getType() == EventType.NodeDeleted) {
                assertThat(view.remove(name))
                        .as("seed %d: %s deleted unseen", seed, name)
                        .isTrue();
            }
        };
        SimSession port = session(world, alice);
        port.addWatch(ROOT, watcher);
        port.children(QUEUE).thenAccept(reply -> {
            view.addAll(((Reply.Children) reply).children());
            listed[0] = true;
        });
        List<String> made = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            world.after(world.delay(0, 5_000), "the stranger changes the queue", () -> {
                if (!made.isEmpty() && world.random.nextBoolean()) {
                    world.server.delete(QUEUE + "/" + made.remove(world.random.nextInt(made.size())));
                } else {
                    made.add(world.server
                            .create(stranger, QUEUE, "n-", true, true)
                            .name());
                }
            });
        }
        int[] compared = {0};
        for (int i = 0; i < 20; i++) {
            world.after(world.delay(100, 5_000), "alice lists", () -> port.children(QUEUE)
                    .thenAccept(reply -> {
                        assertThat(view)
                                .as("seed %d: the view at a listing's reply", seed)
                                .containsExactlyInAnyOrderElementsOf(((Reply.Children) reply).children());
                        compared[0]++;
                    }));
        }
        runUntilIdle(world);
        return compared[0];
    }

    private static SimWorld world(long seed) {
        SimWorld world = new SimWorld(seed, 10_000);
        world.server.makePath(QUEUE);
        return world;
    }

    private SimClient client(String name, SimWorld world) {
        SimClient client = new SimClient(name, world);
        clients.add(client);
        return client;
    }

    private static SimSession session(SimWorld world, SimClient client) {
        return new SimSession(world, client, client.session());
    }

    private static void addWatch(SimWorld world, SimClient client, Watcher watcher) {
        CompletableFuture<Reply> added = session(world, client).addWatch(ROOT, watcher);
        runUntilIdle(world);
        assertThat(added).isCompletedWithValue(new Reply.Done());
    }

    private static Watcher recorder(List<String> heard) {
        return (WatchedEvent event) -> heard.add(
                event.getType() == EventType.None ? event.getState().name() : event.getType() + " " + event.getPath());
    }

    private static void runUntilIdle(SimWorld world) {
        while (world.step(Long.MAX_VALUE)) {
            // each step runs one event
        }
    }
}
