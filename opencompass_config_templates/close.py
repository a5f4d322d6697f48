# G-Pass@k grid for hosted (closed) models behind OpenAI-compatible APIs.
#
#   python save_opencompass_configs.py -tc opencompass_config_templates/close.py
#   OPENAI_API_KEY=... opencompass opencompass_configs/<one of the files>.py -w outputs/
#
# The key is read from OPENAI_API_KEY when the run starts; it is never written to a file.
# Run each provider's files with that provider's key in OPENAI_API_KEY.
# Any variable can be overridden at generation time: --set n=16 "k=[4,8,16]"

# Generation backend: OpenCompass's OpenAISDK against a hosted API (needs internet).
backend = 'openai-api'
# The providers take the OpenAI API's parameters only: temperature and top_p (top_k and
# repetition_penalty are refused at generation time rather than silently not sent).
server = 'openai'

# Models: API model name; url = the provider's OpenAI-compatible base URL (default: OpenAI);
# batch_size = requests in flight per task.  OpenCompass sends no temperature to reasoning models
# (names containing o1, o3, o4, gpt-5): they sample at 1.0, so they get temperatures = [1.0] and no
# greedy run (the generator refuses anything else for them).
models = [
    dict(path='gpt-4o-2024-11-20', batch_size=8),
    dict(path='o1-mini-2024-09-12', batch_size=8),
    dict(path='o3-mini-2025-01-31', batch_size=8),
    dict(path='deepseek-reasoner', name='DeepSeek-R1', url='https://api.deepseek.com/v1', batch_size=8),
]

# Benchmarks, by canonical name (gpassk_opencompass.catalog).
benchmarks = [
    'LiveMathBench-202412',
    'LiveMathBench-Hard-202412',
    'LiveMathBench-202505',
    'MATH500-L5',
    'AIME2024-45',
    'AIME2025',
]

# Sampling: temperature is sent with every request; top_p, top_k, repetition_penalty are left
# to the provider (None), and no seed is sent, so every one of the n requests samples afresh.
temperatures = [1.0]
k = [4, 8, 16]
n = 48
# Curtailed sampling (docs/generator.md, "Curtailed grids"): e.g. dict(first=16, rule='all-wrong') draws 16
# generations per question, then the other n - 16 only for questions with one of the 16 right; every metric
# stays exactly unbiased. `gpassk grid run` draws the second round and combines the two. None: n for every question.
curtail = None
top_p = None
top_k = None
repetition_penalty = None
seed = None
# The paper's budget for closed models: 4096 output tokens (non-o1) / 8192 (o1-like).
max_out_len = 8192
# Prompt + answer budget per request; None = max_out_len + 4096 (the answer is clipped to fit).
max_seq_len = None
query_per_second = 4
retry = 10

# No greedy run (temperature 0, n = 1): the reasoning models above cannot be sent temperature 0.
# For the Greedy column of the other models: --set greedy=True "temperatures=None" with those models.
greedy = False

# Judge: an OpenAI-compatible server; with no URL the rule-based judge is used.
eval_urls = [
    # 'http://judge-host:23333/v1',
]
eval_model_name = 'Qwen/Qwen2.5-72B-Instruct'
judge = 'auto'
