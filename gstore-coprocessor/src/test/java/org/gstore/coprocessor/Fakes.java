package org.gstore.coprocessor;

import java.lang.reflect.Proxy;

/** Fakes of HBase's client interfaces for unit tests: each call goes to an {@link Answer} by method name. */
public final class Fakes {
  private Fakes() {}

  /** What a fake returns for a call of {@code method} with {@code args} (null: nothing, or false, or 0). */
  public interface Answer {
    Object answer(String method, Object[] args) throws Exception;
  }

  /** A {@code type} whose calls {@code answer} answers, and whose {@code toString} is its type's name. */
  public static <T> T fake(Class<T> type, Answer answer) {
    return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type},
        (proxy, method, args) -> method.getName().equals("toString") ? type.getSimpleName()
            : answer.answer(method.getName(), args)));
  }
}
