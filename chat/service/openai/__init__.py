"""The OpenAI chat API's side of the service: the request `/v1/chat/completions` reads

and errors in OpenAI's shape, so OpenAI clients raise their typed errors.
"""
