rchar: 136255351891
wchar: 18984
syscr: 1039783
syscw: 5
read_bytes: 0
write_bytes: 16384
cancelled_write_bytes: 0
