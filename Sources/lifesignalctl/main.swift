// lifesignalctl: the operator's CLI. Thin on purpose: the commands live in OperatorCLI.
import OperatorCLI

LifesignalCtl.mainEscapingMessages()
