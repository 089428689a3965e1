rchar: 24079477737
wchar: 13662
syscr: 183929
syscw: 5
read_bytes: 0
write_bytes: 53248
cancelled_write_bytes: 0
