rchar: 36772654036
wchar: 13662
syscr: 2244638
syscw: 5
read_bytes: 0
write_bytes: 20480
cancelled_write_bytes: 0
