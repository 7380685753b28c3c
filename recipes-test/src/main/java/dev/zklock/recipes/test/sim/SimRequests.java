package dev.zklock.recipes.test.sim;

import dev.zklock.recipes.locks.engine.Event;
import dev.zklock.recipes.locks.engine.LockNode;
import dev.zklock.recipes.locks.engine.LockPath;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.zookeeper.KeeperException.Code;

/**
 * The requests of an acquisition as the engine's {@code QueueRequests} makes them, on the simulated server: a create of
 * several nodes as one transaction, a listing of several queues as one read, and their replies as the machine's events.
 * Stateless.
 */
final class SimRequests {
    private SimRequests() {}

    /** Creates every node or none (one transaction): one result, or several packed as one. */
    static SimServer.Result createAll(
            SimServer server, long session, List<String> parents, List<String> names, boolean sequential) {
        List<SimServer.Result> results = server.createAll(session, parents, names, sequential);
        return results.size() == 1 ? results.get(0) : pack(results);
    }

    /** Lists every queue in one request (a read-only transaction for several: one consistent view). */
    static void listAll(SimClient client, String label, List<LockPath> queues, Consumer<Event> then) {
        List<SimServer.Result> results = new ArrayList<>();
        client.send(
                label + " lists every queue",
                server -> {
                    for (LockPath queue : queues) {
                        results.add(server.children(queue.path(), null));
                    }
                    return SimServer.Result.of(Code.OK);
                },
                result ->
                        then.accept(result.ok() ? listed(client.session(), results) : new Event.Failed(result.code())));
    }

    /** Lists one queue. */
    static void list(SimClient client, String label, String path, Consumer<Event> then) {
        client.send(
                label + " lists",
                server -> server.children(path, null),
                result -> then.accept(listed(client.session(), List.of(result))));
    }

    /**
     * After a lost create reply: on the create's session, a listing of every queue (the simulated server has no lag for
     * a sync to make up); on another session, at once {@code sameSession} false.
     */
    static void recoveryListing(
            SimClient client, String label, List<LockPath> queues, long createSession, Consumer<Event> then) {
        if (client.session() != createSession) {
            then.accept(new Event.RecoveryListed(false, List.of()));
            return;
        }
        listAll(
                client,
                label,
                queues,
                event -> then.accept(
                        event instanceof Event.Listed listed
                                ? new Event.RecoveryListed(true, listed.children())
                                : event));
    }

    /** Reads the owner of a node found by our prefix. */
    static void checkOwner(SimClient client, String label, String path, String name, Consumer<Event> then) {
        long session = client.session();
        client.send(
                label + " checks the owner of " + name,
                server -> server.data(path + "/" + name, null),
                result -> then.accept(
                        result.ok()
                                ? new Event.OwnerChecked(result.owner() == session, session, result.czxid())
                                : result.code() == Code.NONODE
                                        ? new Event.OwnerChecked(false, session, 0)
                                        : new Event.Failed(result.code())));
    }

    /**
     * A create's reply as the machine reads it: our nodes, one per queue (or several in the one queue of a semaphore's
     * leases), or the failure.
     */
    static Event created(SimServer.Result result, List<LockPath> queues, long session) {
        if (!result.ok()) {
            return new Event.Failed(result.code());
        }
        List<LockNode> made = new ArrayList<>();
        List<String> names = result.children().isEmpty() ? List.of(result.name()) : result.children();
        for (int i = 0; i < names.size(); i++) {
            LockPath queue = queues.get(Math.min(i, queues.size() - 1));
            made.add(new LockNode(queue, names.get(i), result.czxid() + i, session));
        }
        return new Event.Created(session, made);
    }

    /** The listings as the machine reads them: a missing path lists empty; another failure fails them all. */
    static Event listed(long session, List<SimServer.Result> results) {
        List<List<String>> listings = new ArrayList<>();
        for (SimServer.Result result : results) {
            if (result.ok()) {
                listings.add(result.children());
            } else if (result.code() == Code.NONODE) {
                listings.add(List.of());
            } else {
                return new Event.Failed(result.code());
            }
        }
        return new Event.Listed(session, listings);
    }

    /** Several creates as one result: its names in order, the first zxid (they are consecutive). */
    private static SimServer.Result pack(List<SimServer.Result> results) {
        SimServer.Result first = results.get(0);
        if (!first.ok()) {
            return first;
        }
        return new SimServer.Result(
                Code.OK,
                first.name(),
                first.czxid(),
                first.owner(),
                results.stream().map(SimServer.Result::name).toList());
    }
}
