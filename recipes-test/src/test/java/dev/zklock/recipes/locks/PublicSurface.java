package dev.zklock.recipes.locks;

import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.Lease;
import org.apache.curator.framework.recipes.locks.RevocationListener;
import org.apache.curator.framework.recipes.shared.SharedCountListener;
import org.apache.curator.framework.recipes.shared.SharedCountReader;
import org.apache.curator.framework.recipes.shared.VersionedValue;

/**
 * The public constructors and methods of a lock class, inherited ones included, found by reflection so that a sweep
 * over them covers a method added tomorrow; with a valid sample value for each parameter type and the name each
 * parameter has in messages.
 */
final class PublicSurface {
    private static final Map<Class<?>, String> PARAMETER_NAMES = Map.ofEntries(
            Map.entry(CuratorFramework.class, "client"),
            Map.entry(String.class, "path"),
            Map.entry(LockDriver.class, "driver"),
            Map.entry(TimeUnit.class, "unit"),
            Map.entry(Duration.class, "timeout"),
            Map.entry(LockStateListener.class, "listener"),
            Map.entry(RevocationListener.class, "listener"),
            Map.entry(Executor.class, "executor"),
            Map.entry(byte[].class, "lockData"),
            Map.entry(SharedCountReader.class, "count"),
            Map.entry(Lease.class, "lease"),
            Map.entry(Collection.class, "leases"));

    private PublicSurface() {}

    /** Returns the public constructors and the public instance methods, but those of Object that are not overridden. */
    static List<Executable> of(Class<?> type) {
        List<Executable> members = new ArrayList<>(Arrays.asList(type.getConstructors()));
        Map<String, Method> methods = new LinkedHashMap<>();
        for (Method method : type.getMethods()) {
            if (method.getDeclaringClass() != Object.class && !Modifier.isStatic(method.getModifiers())) {
                methods.putIfAbsent(signature(method), method);
            }
        }
        members.addAll(methods.values());
        return members;
    }

    /** Returns {@code name(Type,Type)} with simple type names, as the expectations of a sweep are keyed. */
    static String signature(Executable member) {
        String name = member instanceof Constructor ? "<init>" : member.getName();
        return name
                + Arrays.stream(member.getParameterTypes())
                        .map(Class::getSimpleName)
                        .collect(Collectors.joining(",", "(", ")"));
    }

    /** Parameters whose name is not their type's usual one, by {@link #signature} and index. */
    private static final Map<String, String> NAMED_OTHERWISE = Map.of("expire(String)#0", "node");

    /** Returns the name a null check gives parameter {@code index}, as {@code requireNonNull(x, "name")} does. */
    static String parameterName(Executable member, int index) {
        String otherwise = NAMED_OTHERWISE.get(signature(member) + "#" + index);
        if (otherwise != null) {
            return otherwise;
        }
        Class<?> type = member.getParameterTypes()[index];
        if (type == List.class) {
            return elementType(member, index) == String.class ? "paths" : "locks";
        }
        String name = PARAMETER_NAMES.get(type);
        if (name == null) {
            throw new AssertionError("no parameter name known for type " + type.getName() + " in " + member);
        }
        return name;
    }

    /**
     * Returns valid arguments for {@code member}: the given client, {@code path}, the exclusive driver, one second, a
     * listener that does nothing, and for lists the paths {@code path} and {@code otherPath} or two reentrant locks on
     * them.
     */
    static Object[] sampleArguments(Executable member, CuratorFramework client, String path, String otherPath) {
        Class<?>[] types = member.getParameterTypes();
        Object[] arguments = new Object[types.length];
        for (int i = 0; i < types.length; i++) {
            if (types[i] == List.class) {
                arguments[i] = elementType(member, i) == String.class
                        ? List.of(path, otherPath)
                        : List.of(new ZkReentrantLock(client, path), new ZkReentrantLock(client, otherPath));
            } else {
                arguments[i] = sample(types[i], client, path);
            }
        }
        return arguments;
    }

    /** Calls {@code member} on {@code target} (ignored for a constructor) and returns what it threw, or null. */
    static Throwable thrownBy(Executable member, Object target, Object[] arguments) {
        try {
            if (member instanceof Constructor<?> constructor) {
                constructor.newInstance(arguments);
            } else {
                ((Method) member).invoke(target, arguments);
            }
            return null;
        } catch (InvocationTargetException e) {
            return e.getCause();
        } catch (ReflectiveOperationException e) {
            throw new AssertionError("cannot call " + member, e);
        }
    }

    private static Type elementType(Executable member, int index) {
        Type type = member.getGenericParameterTypes()[index];
        Type element = ((ParameterizedType) type).getActualTypeArguments()[0];
        return element;
    }

    private static Object sample(Class<?> type, CuratorFramework client, String path) {
        if (type == CuratorFramework.class) {
            return client;
        } else if (type == String.class) {
            return path;
        } else if (type == LockDriver.class) {
            return LockDriver.exclusive();
        } else if (type == long.class) {
            return 1L;
        } else if (type == int.class) {
            return 1;
        } else if (type == SharedCountReader.class) {
            return new FixedCount(2);
        } else if (type == Lease.class) {
            return new ReturnedLease();
        } else if (type == Collection.class) {
            return List.of(new ReturnedLease());
        } else if (type == TimeUnit.class) {
            return TimeUnit.SECONDS;
        } else if (type == Duration.class) {
            return Duration.ofSeconds(1);
        } else if (type == LockStateListener.class) {
            return (LockStateListener) event -> {};
        } else if (type == RevocationListener.class) {
            return (RevocationListener<Object>) forLock -> {};
        } else if (type == Executor.class) {
            return (Executor) Runnable::run;
        } else if (type == byte[].class) {
            return new byte[] {1, 2, 3};
        }
        throw new AssertionError("no sample value for a parameter of type " + type.getName());
    }

    /** A lease count that never changes, with no listener ever told. */
    private record FixedCount(int count) implements SharedCountReader {
        @Override
        public int getCount() {
            return count;
        }

        @Override
        public VersionedValue<Integer> getVersionedValue() {
            throw new UnsupportedOperationException("a semaphore reads the count alone");
        }

        @Override
        public void addListener(SharedCountListener listener) {}

        @Override
        public void addListener(SharedCountListener listener, Executor executor) {}

        @Override
        public void removeListener(SharedCountListener listener) {}
    }

    /** A lease already returned: closing it again does nothing. */
    private static final class ReturnedLease implements Lease {
        @Override
        public void close() {}

        @Override
        public byte[] getData() {
            return new byte[0];
        }

        @Override
        public String getNodeName() {
            return "lease-0000000000";
        }
    }
}
