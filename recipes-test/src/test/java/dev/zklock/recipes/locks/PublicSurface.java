package dev.zklock.recipes.locks;

import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.curator.framework.CuratorFramework;

/**
 * The public constructors and methods of a lock class, found by reflection so that a sweep over them covers a method
 * added tomorrow, with a valid sample value for each parameter type and the name each parameter has in messages.
 */
final class PublicSurface {
    /** The name a null check gives each parameter type, as {@code requireNonNull(x, "name")} does. */
    static final Map<Class<?>, String> PARAMETER_NAMES = Map.of(
            CuratorFramework.class, "client",
            String.class, "path",
            LockDriver.class, "driver",
            TimeUnit.class, "unit",
            Duration.class, "timeout");

    private PublicSurface() {}

    /** Returns the public constructors and the public methods the class declares (not those of Object it inherits). */
    static List<Executable> of(Class<?> type) {
        List<Executable> members = new ArrayList<>(Arrays.asList(type.getConstructors()));
        for (Method method : type.getDeclaredMethods()) {
            if (Modifier.isPublic(method.getModifiers()) && !method.isSynthetic()) {
                members.add(method);
            }
        }
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

    /** Returns valid arguments for {@code member}: the given client and path, the exclusive driver, one second. */
    static Object[] sampleArguments(Executable member, CuratorFramework client, String path) {
        Class<?>[] types = member.getParameterTypes();
        Object[] arguments = new Object[types.length];
        for (int i = 0; i < types.length; i++) {
            arguments[i] = sample(types[i], client, path);
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

    private static Object sample(Class<?> type, CuratorFramework client, String path) {
        if (type == CuratorFramework.class) {
            return client;
        } else if (type == String.class) {
            return path;
        } else if (type == LockDriver.class) {
            return LockDriver.exclusive();
        } else if (type == long.class) {
            return 1L;
        } else if (type == TimeUnit.class) {
            return TimeUnit.SECONDS;
        } else if (type == Duration.class) {
            return Duration.ofSeconds(1);
        }
        throw new AssertionError("no sample value for a parameter of type " + type.getName());
    }
}
