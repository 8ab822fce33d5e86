# origin: tensorflow/docs site/en/guide/function.ipynb ("Accumulating values in a loop" section)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added the import; the guide's tf.random.uniform input became a fixed tf.reshape(tf.range(...)) tensor so the output is deterministic; printed the result
import tensorflow as tf

batch_size = 2
seq_len = 3
feature_size = 4

def rnn_step(inp, state):
  return inp + state

@tf.function
def dynamic_rnn(rnn_step, input_data, initial_state):
  # [batch, time, features] -> [time, batch, features]
  input_data = tf.transpose(input_data, [1, 0, 2])
  max_seq_len = input_data.shape[0]

  states = tf.TensorArray(tf.float32, size=max_seq_len)
  state = initial_state
  for i in tf.range(max_seq_len):
    state = rnn_step(input_data[i], state)
    states = states.write(i, state)
  return tf.transpose(states.stack(), [1, 0, 2])

print(dynamic_rnn(rnn_step,
                  tf.reshape(tf.range(batch_size * seq_len * feature_size, dtype=tf.float32),
                             [batch_size, seq_len, feature_size]),
                  tf.zeros([batch_size, feature_size])))
