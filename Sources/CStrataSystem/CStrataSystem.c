// Headers only: this target exists so Swift can see <sys/xattr.h>.
#include "CStrataSystem.h"
