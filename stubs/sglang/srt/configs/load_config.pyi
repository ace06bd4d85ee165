import enum
from typing import Final, Literal, TypeAlias

from _typeshed import Incomplete

class _DefaultLoadGroup(enum.Enum):
    DEFAULT = 1

_DEFAULT_LOAD_GROUP: Final = _DefaultLoadGroup.DEFAULT

# At runtime: Union["GroupCoordinator", _DefaultLoadGroup, None]. GroupCoordinator
# (sglang.srt.distributed.parallel_state) is not stubbed, so it is Incomplete;
# the alias still says that the default sentinel and None are valid.
LoadGroup: TypeAlias = Incomplete | Literal[_DefaultLoadGroup.DEFAULT] | None
