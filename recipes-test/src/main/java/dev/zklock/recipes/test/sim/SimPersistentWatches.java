package dev.zklock.recipes.test.sim;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.Watcher.Event.KeeperState;

/**
 * The persistent recursive watches of one simulated client's current session: each event (the changed node's path and
 * its type) is handed over in the server's order ({@link SimClient#handOverOrLose}): just before the reply of the
 * session's first request not applied yet, else after the last reply; and the watch stays set. It
 * stays set on the server across a reconnect of the session, but an event fired while the connection is down, or
 * still on its way when it drops, is lost: ZooKeeper's client sets its persistent watches again on a reconnect and the
 * server replays nothing. As ZooKeeper's client, the watchers are told of the connection's changes (Disconnected at a
 * drop, SyncConnected at a reconnect of the session) until the session ends or the watch is removed. Not thread-safe.
 */
final class SimPersistentWatches {
    private final SimClient client;
    private final Map<Object, Consumer<KeeperState>> watchers = new LinkedHashMap<>(); // identity keys, in order set

    SimPersistentWatches(SimClient client) {
        this.client = client;
    }

    /** The watch of {@code watcher} on the client's current session, as the server keeps it. */
    SimServer.Watch watch(Object watcher, BiConsumer<String, EventType> onEvent, Consumer<KeeperState> onState) {
        long on = client.session();
        watchers.put(watcher, onState);
        return new SimServer.Watch(
                on,
                watcher,
                (path, type) -> client.handOverOrLose(
                        on,
                        path,
                        "persistent watch event " + type + " " + SimServer.nameOf(path),
                        () -> onEvent.accept(path, type)));
    }

    /** The watch of {@code watcher} was removed: it hears no more of the connection. */
    void removed(Object watcher) {
        watchers.remove(watcher);
    }

    /** Tells every watcher of the session of the connection's change. */
    void tell(KeeperState state) {
        for (Consumer<KeeperState> watcher : List.copyOf(watchers.values())) {
            watcher.accept(state);
        }
    }

    /** The session ended: its watches went with it. */
    void clear() {
        watchers.clear();
    }
}
