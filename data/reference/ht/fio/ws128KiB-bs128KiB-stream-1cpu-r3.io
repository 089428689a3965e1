rchar: 119383632891
wchar: 13673
syscr: 911045
syscw: 5
read_bytes: 0
write_bytes: 49152
cancelled_write_bytes: 0
