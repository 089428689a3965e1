rchar: 28188936658
wchar: 5974
syscr: 27073
syscw: 3
read_bytes: 0
write_bytes: 20480
cancelled_write_bytes: 0
