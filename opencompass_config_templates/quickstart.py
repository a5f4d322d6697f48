# The laptop grid: one small model on a local OpenAI-compatible server, one benchmark, n = 8.
# No GPU, no lmdeploy, no judge model: the first leaderboard in an afternoon (see the README's
# "First leaderboard on a laptop").  The default template of save_opencompass_configs.py.
#
#   llama-server -m qwen2.5-0.5b-instruct-q4_k_m.gguf -c 16384 -np 4       # llama.cpp, port 8080
#   python save_opencompass_configs.py
#   gpassk data check AIME2025
#   gpassk grid run opencompass_configs -w outputs/
#   gpassk leaderboard outputs/ --k 8
#
# Ollama instead: --set model_url=http://127.0.0.1:11434/v1 server=ollama top_k=None \
#                      repetition_penalty=None "models=[{'path': 'qwen2.5:0.5b'}]"
# The paper's grid (n = 48, k up to 16, six benchmarks): nono1.py and o1.py (lmdeploy on CUDA GPUs),
# self_served.py (your own server), close.py (hosted APIs).

backend = 'openai-local'

# Base URL of the server (ending in /v1): llama.cpp's llama-server listens on 8080 by default.
model_url = 'http://127.0.0.1:8080/v1'

# The software serving model_url; it decides under which names top_k and the repetition
# penalty are sent ('vllm', 'sglang', 'lmdeploy', 'llama.cpp', 'ollama', 'openai', None;
# see self_served.py).  Ollama takes neither: with server = 'ollama' set top_k = None and
# repetition_penalty = None.
server = 'llama.cpp'

# path = the model name the server expects (llama.cpp serves one model and accepts any name;
# Ollama wants its tag, e.g. 'qwen2.5:0.5b').  batch_size = requests in flight: at most the
# server's parallel slots (llama-server -np 4; each slot gets -c / -np tokens of context).
models = [
    dict(path='qwen2.5-0.5b-instruct', batch_size=4),
]

# One benchmark: AIME 2025 (15 questions in OpenCompass's file), a single small download
# (docs/data.md), not gated.
benchmarks = [
    'AIME2025',
]

# Sampling: n = 8 answers per question, G-Pass@k at k = 4 and 8 (the leaderboard: --k 8).
# No seed is sent: the server draws one per request, so the 8 replicas differ.
temperatures = [1.0]
k = [4, 8]
n = 8
top_p = 0.8
top_k = 50
repetition_penalty = 1.0
seed = None
# Short answers keep a CPU run short; prompt + answer must fit the server's context (-c).
max_out_len = 2048
max_seq_len = 4096
query_per_second = 4
retry = 3

# Also one greedy run (temperature 0, n = 1): the leaderboard's Greedy column.
greedy = True

# Judge: no URL, so the rule judge (math-verify) checks every answer on this machine.
eval_urls = []
eval_model_name = ''
judge = 'auto'
