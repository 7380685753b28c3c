package dev.zklock.recipes.test.sim;

import dev.zklock.recipes.locks.engine.Event;
import dev.zklock.recipes.locks.engine.Reply;
import dev.zklock.recipes.locks.engine.SessionPort;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.apache.zookeeper.proto.CreateRequest;

/**
 * The engine's {@link SessionPort} on one session of a simulated client: each request goes through the client's
 * connection ({@link SimClient#send}: answered in the order sent, failed with the connection), to the simulated server;
 * each watcher is the engine's own, told its event in order with the replies. A request on a session that is not the
 * client's current one fails with SESSIONEXPIRED, as a ZooKeeper handle's after its session ended. Confined to the
 * simulation's one thread.
 */
final class SimSession implements SessionPort {
    static final String MUTEX_CHECKS_LEASES = "a semaphore's mutex deleted checking its leases stand";
    static final String LEASE_FOUND_DELETED = "a lease found deleted as its semaphore's mutex went";
    static final String CHILD_WATCH = "a child watch set (a lease step waits)";
    /** The tally of single-path listings sent to the server (a queue view answers most of them itself). */
    static final String LISTING_SENT = "listing of one path sent";

    static final String WATCH_REMOVED = "persistent recursive watch removed";

    private final SimWorld world;
    private final SimClient client;
    private final long id;

    SimSession(SimWorld world, SimClient client, long id) {
        this.world = world;
        this.client = client;
        this.id = id;
    }

    @Override
    public long sessionId() {
        return id;
    }

    @Override
    public <T> CompletableFuture<T> create(
            String path, byte[] data, List<ACL> acl, CreateMode mode, Function<Reply, T> onReply) {
        String parent = SimServer.parentOf(path);
        String name = SimServer.nameOf(path);
        return send("creates " + name, server -> server.create(id, parent, name, mode.isSequential(), true), result -> {
            T answer = onReply.apply(
                    result.ok() ? new Reply.Created(parent + "/" + result.name(), result.czxid()) : failed(result));
            if (answer instanceof Event.Created made && made.ownPredecessor() != null) {
                world.note(client.name + " made " + result.name() + " right behind its own " + made.ownPredecessor());
                world.createdBehindOwn();
            }
            return answer;
        });
    }

    /** A transaction of creates (a multi-lock's, one transaction) or of listings (a read of several paths). */
    @Override
    public CompletableFuture<Reply.Transaction> multi(List<Op> ops) {
        if (ops.stream().allMatch(op -> op instanceof Op.Create)) {
            List<String> parents = new ArrayList<>();
            List<String> names = new ArrayList<>();
            boolean sequential = true;
            for (Op op : ops) {
                parents.add(SimServer.parentOf(op.getPath()));
                names.add(SimServer.nameOf(op.getPath()));
                sequential &= CreateMode.fromFlag(
                                ((CreateRequest) op.toRequestRecord()).getFlags(), CreateMode.EPHEMERAL)
                        .isSequential();
            }
            boolean sequentially = sequential;
            List<SimServer.Result> made = new ArrayList<>();
            return send(
                    "creates " + names.get(0) + " in " + parents,
                    server -> {
                        made.addAll(server.createAll(id, parents, names, sequentially));
                        return made.get(0);
                    },
                    result -> {
                        if (!result.ok()) {
                            return new Reply.Transaction(result.code(), List.of());
                        }
                        List<OpResult> results = new ArrayList<>();
                        for (int i = 0; i < made.size(); i++) {
                            results.add(new OpResult.CreateResult(
                                    parents.get(i) + "/" + made.get(i).name(), stat(made.get(i))));
                        }
                        return new Reply.Transaction(Code.OK, results);
                    });
        }
        if (ops.stream().allMatch(op -> op.getType() == ZooDefs.OpCode.getChildren)) {
            List<SimServer.Result> listed = new ArrayList<>();
            return send(
                    "lists " + ops.stream().map(Op::getPath).toList(),
                    server -> {
                        ops.forEach(op -> listed.add(server.children(op.getPath(), null)));
                        return SimServer.Result.of(Code.OK);
                    },
                    result -> {
                        if (!result.ok()) {
                            return new Reply.Transaction(result.code(), List.of());
                        }
                        List<OpResult> results = new ArrayList<>();
                        for (SimServer.Result one : listed) {
                            results.add(
                                    one.ok()
                                            ? new OpResult.GetChildrenResult(one.children())
                                            : new OpResult.ErrorResult(
                                                    one.code().intValue()));
                        }
                        return new Reply.Transaction(Code.OK, results);
                    });
        }
        if (ops.get(ops.size() - 1).getType() == ZooDefs.OpCode.delete
                && ops.subList(0, ops.size() - 1).stream().allMatch(op -> op.getType() == ZooDefs.OpCode.check)) {
            return checkedDelete(ops);
        }
        throw new UnsupportedOperationException("the simulation sends no transaction of " + ops);
    }

    /**
     * Checks that each node but the last stands, then deletes the last, all or nothing (a semaphore's mutex released
     * after a grant, {@code LockPath.endLater}); a failed transaction's results name the first check that failed, as
     * ZooKeeper's do.
     */
    private CompletableFuture<Reply.Transaction> checkedDelete(List<Op> ops) {
        List<OpResult> results = new ArrayList<>(); // filled as the server applies it
        int last = ops.size() - 1;
        return send(
                "deletes " + SimServer.nameOf(ops.get(last).getPath()) + " if " + last + " nodes stand",
                server -> {
                    int failing = -1;
                    SimServer.Result answer = null;
                    for (int i = 0; i < last && failing < 0; i++) {
                        answer = server.data(ops.get(i).getPath(), null);
                        failing = answer.ok() ? -1 : i;
                    }
                    if (failing < 0) {
                        answer = server.delete(ops.get(last).getPath());
                        failing = answer.ok() ? -1 : last;
                    }
                    world.tally(failing >= 0 && failing < last ? LEASE_FOUND_DELETED : MUTEX_CHECKS_LEASES);
                    for (int i = 0; i <= last; i++) {
                        Code code = i < failing ? Code.OK : i == failing ? answer.code() : Code.RUNTIMEINCONSISTENCY;
                        results.add(
                                failing >= 0
                                        ? new OpResult.ErrorResult(code.intValue())
                                        : i < last ? new OpResult.CheckResult() : new OpResult.DeleteResult());
                    }
                    return answer;
                },
                result -> new Reply.Transaction(
                        result.code(), result.code() == Code.CONNECTIONLOSS ? List.of() : results));
    }

    @Override
    public CompletableFuture<Reply> children(String path) {
        world.tally(LISTING_SENT);
        return send("lists " + path, server -> server.children(path, null), SimSession::listed);
    }

    @Override
    public CompletableFuture<Reply> watchChildren(String path, Watcher watcher) {
        return send(
                "lists " + path + " with a child watch",
                server -> {
                    world.tally(CHILD_WATCH);
                    return server.children(path, watchOf(watcher, path));
                },
                SimSession::listed);
    }

    @Override
    public CompletableFuture<Reply> watchData(String path, Watcher watcher) {
        return send(
                "watches " + SimServer.nameOf(path),
                server -> server.data(path, watchOf(watcher, path)),
                SimSession::nodeStat);
    }

    @Override
    public void watchData(String path, Watcher watcher, AsyncCallback.DataCallback callback) {
        send(
                "watches its own node " + SimServer.nameOf(path),
                server -> server.data(path, watchOf(watcher, path)),
                r -> {
                    callback.processResult(r.code().intValue(), path, null, null, r.ok() ? stat(r) : null);
                    return null;
                });
    }

    @Override
    public CompletableFuture<Reply> sync(String path) {
        return send("syncs", server -> SimServer.Result.of(Code.OK), SimSession::done);
    }

    @Override
    public CompletableFuture<Reply> exists(String path) {
        return send("reads " + SimServer.nameOf(path), server -> server.data(path, null), SimSession::nodeStat);
    }

    @Override
    public CompletableFuture<Reply> delete(String path) {
        return send("deletes " + SimServer.nameOf(path), server -> server.delete(path), SimSession::done);
    }

    @Override
    public CompletableFuture<Reply> removeWatch(String path, Watcher watcher, boolean children) {
        return send(
                "removes its watch on " + SimServer.nameOf(path),
                server -> SimServer.Result.of(server.removeWatch(path, watcher, children) ? Code.OK : Code.NOWATCHER),
                SimSession::done);
    }

    @Override
    public CompletableFuture<Reply> addWatch(String path, Watcher watcher) {
        return send(
                "adds a persistent recursive watch on " + path,
                server -> server.addRecursiveWatch(
                        path,
                        client.persistentWatches.watch(
                                watcher,
                                (changed, type) ->
                                        watcher.process(new WatchedEvent(type, KeeperState.SyncConnected, changed)),
                                state -> watcher.process(new WatchedEvent(EventType.None, state, null)))),
                SimSession::done);
    }

    @Override
    public CompletableFuture<Reply> removeWatches(String path, Watcher watcher) {
        return send(
                "removes its watches on " + path,
                server -> {
                    if (!server.removeAllWatches(path, watcher)) {
                        return SimServer.Result.of(Code.NOWATCHER);
                    }
                    client.persistentWatches.removed(watcher);
                    world.tally(WATCH_REMOVED);
                    return SimServer.Result.of(Code.OK);
                },
                SimSession::done);
    }

    /** Sends one request on this session; its reply is read by {@code answer}, on the simulation's thread. */
    private <T> CompletableFuture<T> send(
            String what, Function<SimServer, SimServer.Result> operation, Function<SimServer.Result, T> answer) {
        CompletableFuture<T> reply = new CompletableFuture<>();
        if (client.isClosed() || client.session() != id) {
            world.after(
                    1,
                    client.name + " " + what + ": session expired",
                    () -> reply.complete(answer.apply(SimServer.Result.of(Code.SESSIONEXPIRED))));
            return reply;
        }
        client.send(what, operation, result -> reply.complete(answer.apply(result)));
        return reply;
    }

    /** The engine's watcher as the client registers it: told its event, in order with the replies. */
    private SimServer.Watch watchOf(Watcher watcher, String path) {
        return client.watch(watcher, type -> watcher.process(new WatchedEvent(type, KeeperState.SyncConnected, path)));
    }

    private static Reply listed(SimServer.Result result) {
        return result.ok() ? new Reply.Children(result.children()) : failed(result);
    }

    private static Reply nodeStat(SimServer.Result result) {
        return result.ok() ? new Reply.NodeStat(stat(result)) : failed(result);
    }

    private static Reply done(SimServer.Result result) {
        return result.ok() ? new Reply.Done() : failed(result);
    }

    private static Reply failed(SimServer.Result result) {
        return new Reply.Failed(result.code());
    }

    private static Stat stat(SimServer.Result result) {
        Stat stat = new Stat();
        stat.setCzxid(result.czxid());
        stat.setEphemeralOwner(result.owner());
        return stat;
    }
}
