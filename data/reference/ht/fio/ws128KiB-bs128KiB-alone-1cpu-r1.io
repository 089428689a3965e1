rchar: 119071943584
wchar: 13673
syscr: 908666
syscw: 5
read_bytes: 528384
write_bytes: 20480
cancelled_write_bytes: 0
