rchar: 100743973329
wchar: 5984
syscr: 768805
syscw: 3
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
